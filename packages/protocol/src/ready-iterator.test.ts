import { describe, expect, it } from 'vitest';
import { heldQueue, type ReadyIterator, takeReady } from './ready-iterator.ts';

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

describe('heldQueue', () => {
  it('hands out what was pushed oldest first, across pushes between takes, and nothing after clear()', () => {
    const held = heldQueue<number>();
    expect(held.take()).toBeUndefined();
    held.items.push(1, 2);
    expect(held.take()).toBe(1);
    held.items.push(3);
    expect([held.take(), held.take(), held.take()]).toEqual([2, 3, undefined]);
    // Emptied once every value was taken: the array does not grow with what was read.
    expect(held.items).toHaveLength(0);
    held.items.push(4, 5);
    held.clear();
    expect(held.take()).toBeUndefined();
    held.items.push(6);
    expect(held.take()).toBe(6);
  });
});
