// The memory store's values alone: bounded by bytes, the oldest dropped first.
import { describe, expect, it } from 'vitest';
import { createValueTable } from './memory-values.ts';

describe('value table', () => {
  it('drops the values set longest ago once they hold more than maxBytes; a value set again is new', () => {
    const values = createValueTable(30);
    values.set('a', '1234567', 100); // 8
    values.set('b', '1234567', 100); // 16
    values.set('c', '1234567', 100); // 24
    values.set('a', '1234567', 100); // a moves to the end
    values.set('d', '1234567', 100); // 32 > 30: b goes
    expect(['a', 'b', 'c', 'd'].map((k) => values.get(k, 0) !== undefined)).toEqual([true, false, true, true]);
    expect(values.bytes).toBe(24);
  });

  it('forgets a value at its expiry', () => {
    const values = createValueTable(1_000);
    values.set('k', 'v', 10);
    expect(values.get('k', 10)).toBe('v');
    expect(values.get('k', 11)).toBeUndefined();
    expect(values.bytes).toBe(0);
  });
});
