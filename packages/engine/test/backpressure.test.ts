// Backpressure (issue #26): the engine reads the model's stream no faster than its reader takes
// events. An endless model and a reader that stops taking them: the model is read up to the
// queue's byte bound, not on and on.
import type { Event, LanguageModel } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../src/index.ts';
import { counterIds } from './helpers.ts';

/** A model that streams 1 KiB text deltas until it is stopped (bounded at 100,000 so a failing test ends). */
function endlessModel() {
  const state = { read: 0, closed: false };
  const model: LanguageModel = {
    provider: 'endless',
    modelId: 'endless',
    dialect: 'openai_completions',
    async *stream() {
      try {
        yield { type: 'text-start', id: 't0' };
        for (let i = 0; i < 100_000; i++) {
          state.read++;
          // A macrotask per delta, as an HTTP body gives: the reader's side gets to run in between.
          await new Promise((resolve) => setImmediate(resolve));
          yield { type: 'text-delta', id: 't0', delta: 'x'.repeat(1024) };
        }
      } finally {
        state.closed = true;
      }
    },
  };
  return { model, state };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('backpressure', () => {
  it.each([
    { maxQueuedBytes: undefined, bound: 256 * 1024 },
    { maxQueuedBytes: 16 * 1024, bound: 16 * 1024 },
  ])('a reader that stops reading stops the model read at the queue bound ($bound bytes)', async ({ maxQueuedBytes, bound }) => {
    const { model, state } = endlessModel();
    const engine = createEngine({ model, generateId: counterIds(), ...(maxQueuedBytes ? { maxQueuedBytes } : {}) });
    const events = engine.streamChat({ prompt: 'go on forever' })[Symbol.asyncIterator]();
    const taken: Event[] = [];
    while (taken.filter((e) => e.type === 'text-delta').length < 5) taken.push((await events.next()).value as Event);
    // The reader now takes nothing. Give the model many chances to be read: a thousand turns of the event loop.
    await turns(1_000);
    const held = state.read - 5;
    // At most the bound's worth of 1 KiB deltas (each counted as 1,024 + 64 bytes), plus the one being pushed.
    expect(held).toBeLessThanOrEqual(Math.ceil(bound / 1088) + 2);
    expect(held).toBeGreaterThan(0);
    // Taking events again lets the model be read again, from where it was, nothing lost.
    const before = state.read;
    for (let i = 0; i < 500; i++) taken.push((await events.next()).value as Event);
    expect(state.read).toBeGreaterThan(before);
    const deltas = taken.filter((e) => e.type === 'text-delta');
    expect(deltas.every((e) => e.type === 'text-delta' && e.delta.length === 1024)).toBe(true);
    await events.return?.();
    await turns(5);
    expect(state.closed).toBe(true);
  });

  it('a reader that keeps up reads the whole stream through the bound (no deadlock at a tiny bound)', async () => {
    const chunks = Array.from({ length: 300 }, (_, i) => `w${i} `);
    const model: LanguageModel = {
      provider: 'p',
      modelId: 'm',
      dialect: 'openai_completions',
      async *stream() {
        yield { type: 'text-start', id: 't0' };
        for (const delta of chunks) yield { type: 'text-delta', id: 't0', delta };
        yield { type: 'text-end', id: 't0' };
        yield { type: 'finish', finishReason: 'stop', usage: {} };
      },
    };
    const engine = createEngine({ model, generateId: counterIds(), maxQueuedBytes: 1 });
    let text = '';
    let finish: Event | undefined;
    for await (const event of engine.streamChat({ prompt: 'hi' })) {
      if (event.type === 'text-delta') text += event.delta;
      if (event.type === 'chat-finish') finish = event;
    }
    expect(text).toBe(chunks.join(''));
    expect(finish).toMatchObject({ haltReason: 'completed' });
  });

  it('refuses a maxQueuedBytes that is not a positive number', () => {
    const { model } = endlessModel();
    for (const maxQueuedBytes of [0, -1, Number.NaN]) {
      expect(() => createEngine({ model, maxQueuedBytes }).streamChat({ prompt: 'x' })).toThrow(/maxQueuedBytes/);
    }
  });
});
