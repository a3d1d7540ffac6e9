import type { Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createBlockCarry } from './block-carry.ts';
import { createEventWalk } from './event-walk.ts';
import { createFormMatcher } from './form-matcher.ts';

const KEY = 'sk-carry-0123456789abcdef';

describe('createBlockCarry (phase three: a secret split across deltas)', () => {
  const carry = () => {
    const matcher = createFormMatcher([KEY])!;
    return createBlockCarry(matcher, createEventWalk(matcher));
  };

  it('holds the tail that may begin a form per block, and joins it with the next delta', () => {
    const c = carry();
    const released: Event[] = [];
    expect(c.delta({ type: 'text-delta', id: 'a', delta: 'key sk-car' }, released)).toEqual({ type: 'text-delta', id: 'a', delta: 'key ' });
    expect(c.delta({ type: 'text-delta', id: 'b', delta: 'other sk-' }, released)).toEqual({ type: 'text-delta', id: 'b', delta: 'other ' });
    expect(c.holding()).toBe(true);
    expect(c.delta({ type: 'text-delta', id: 'a', delta: 'ry-0123456789abcdef!' }, released)).toEqual({ type: 'text-delta', id: 'a', delta: '[redacted]!' });
    c.end('b', released);
    expect(released).toEqual([{ type: 'text-delta', id: 'b', delta: 'sk-' }]);
    expect(c.holding()).toBe(false);
  });

  it('holds a partial object whose last string may begin a form until the next snapshot, and releases all on demand', () => {
    const c = carry();
    const released: Event[] = [];
    expect(c.object({ type: 'object-delta', object: { k: 'sk-ca' } } as Event & { object: unknown }, released)).toBeUndefined();
    const next = { type: 'object-delta', object: { k: 'done' } } as Event & { object: unknown };
    expect(c.object(next, released)).toBe(next);
    c.delta({ type: 'reasoning-delta', id: 'r', delta: 'think sk-c' }, released);
    c.releaseAll(released);
    expect(released).toEqual([{ type: 'reasoning-delta', id: 'r', delta: 'sk-c' }]);
  });
});
