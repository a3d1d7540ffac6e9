import { REDACTED } from '@parlance/engine';
import { describe, expect, it } from 'vitest';
import { createEventWalk } from './event-walk.ts';

describe('createEventWalk (phase two: every string of an event)', () => {
  const walk = createEventWalk({ scrub: (text) => text.split('SECRET99').join(REDACTED), numeric: [] });

  it('scrubs values and keys at any depth, copying only the path to a change', () => {
    const clean = { a: [1, 'x'], b: 'ok' };
    const value = { clean, deep: [{ k: 'has SECRET99' }], ['SECRET99']: 1 };
    const out = walk(value) as Record<string, unknown>;
    expect(out).toEqual({ clean, deep: [{ k: `has ${REDACTED}` }], [REDACTED]: 1 });
    expect(out.clean).toBe(clean);
    expect(walk(clean)).toBe(clean);
  });

  it('scrubs what JSON.stringify would send for an object with toJSON, and digits in numbers', () => {
    const walkDigits = createEventWalk({ scrub: (text) => text.split('12345678').join(REDACTED), numeric: ['12345678'] });
    expect(walkDigits({ when: { toJSON: () => 'at 12345678' }, pin: 12345678 })).toEqual({ when: `at ${REDACTED}`, pin: REDACTED });
  });
});
