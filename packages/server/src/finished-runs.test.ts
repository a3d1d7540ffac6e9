// The memory store's retention phase alone: time and bytes, oldest first, bounded records of what was evicted.
import { describe, expect, it } from 'vitest';
import { createFinishedRuns } from './finished-runs.ts';

const record = (id: string) => ({ id, requestKey: `p:${id}`, status: 'finished' as const, createdAt: 0 });

describe('finished runs', () => {
  it('evicts the oldest finished runs once they hold more than maxBytes together', () => {
    const f = createFinishedRuns({ retainMs: 1_000, maxBytes: 100, maxExpired: 10 });
    expect(f.add('a', 40, 1)).toEqual([]);
    expect(f.add('b', 40, 2)).toEqual([]);
    expect(f.add('c', 40, 3)).toEqual(['a']);
    expect(f.bytes).toBe(80);
    expect(f.add('d', 90, 4)).toEqual(['b', 'c']);
    expect(f.bytes).toBe(90);
    // A run larger than the whole budget is evicted at once (its reader is told run_expired).
    expect(f.add('e', 500, 5)).toEqual(['d', 'e']);
    expect(f.bytes).toBe(0);
  });

  it('forgets runs whose retention ended, oldest first, and their bytes', () => {
    const f = createFinishedRuns({ retainMs: 100, maxBytes: 1_000, maxExpired: 10 });
    f.add('a', 10, 0);
    f.add('b', 20, 50);
    expect(f.due(120)).toEqual(['a']);
    expect(f.bytes).toBe(20);
    expect(f.due(200)).toEqual(['b']);
    expect(f.bytes).toBe(0);
  });

  it('remembers evicted runs as expired until their retention ends, at most maxExpired of them', () => {
    const f = createFinishedRuns({ retainMs: 100, maxBytes: 1_000, maxExpired: 2 });
    f.expire(record('a'), 0);
    expect(f.expired('a')).toMatchObject({ id: 'a', status: 'finished', expired: true });
    f.expire(record('b'), 10);
    f.expire(record('c'), 20);
    expect(f.expiredCount).toBe(2);
    expect(f.expired('a')).toBeUndefined();
    f.due(115);
    expect(f.expired('b')).toBeUndefined();
    expect(f.expired('c')).toMatchObject({ expired: true });
    f.due(121);
    expect(f.expired('c')).toBeUndefined();
  });
});
