import { describe, expect, it } from 'vitest';
import { createEventQueue } from './event-queue.ts';

const settled = async (promise: Promise<void>) => {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
};

describe('the event queue', () => {
  it('taken() resolves only once the reader took every event and asks for the next (it stored the last one)', async () => {
    const queue = createEventQueue<string>(() => {});
    const reader = queue[Symbol.asyncIterator]();
    queue.push('a');
    queue.push('b');
    const taken = queue.taken();
    expect(await settled(taken)).toBe(false);
    expect(await reader.next()).toEqual({ value: 'a', done: false });
    expect(await reader.next()).toEqual({ value: 'b', done: false });
    // 'b' was handed out, but the reader has not asked for more: it may still be storing 'b'.
    expect(await settled(taken)).toBe(false);
    const next = reader.next();
    expect(await settled(taken)).toBe(true);
    // Already waiting: a new taken() resolves at once; a push makes the next one wait again.
    expect(await settled(queue.taken())).toBe(true);
    queue.push('c');
    expect(await next).toEqual({ value: 'c', done: false });
    const later = queue.taken();
    expect(await settled(later)).toBe(false);
    queue.end();
    expect(await settled(later)).toBe(true);
  });
});
