import { describe, expect, it } from 'vitest';
import { type ReadyIterator, takeReady } from './ready-iterator.ts';

describe('takeReady', () => {
  it('is undefined for an iterator that holds nothing it can hand out synchronously (an async generator)', async () => {
    const generator = (async function* () {
      yield 1;
      yield 2;
    })();
    expect(takeReady(generator)).toBeUndefined();
    expect(await generator.next()).toEqual({ done: false, value: 1 });
    expect(takeReady(generator)).toBeUndefined();
  });

  it("hands out what a ReadyIterator holds, in order, and leaves the end to next()", async () => {
    const held = ['a', 'b', 'c'];
    const iterator: ReadyIterator<string> = {
      next: async () => (held.length ? { done: false, value: held.shift()! } : { done: true, value: undefined }),
      takeReady: () => held.shift(),
      [Symbol.asyncIterator]: () => iterator,
    };
    expect(await iterator.next()).toEqual({ done: false, value: 'a' });
    expect([takeReady(iterator), takeReady(iterator), takeReady(iterator)]).toEqual(['b', 'c', undefined]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});
