/**
 * A body read in one piece crosses the provider model and the run loop as a batch: one `next()` per
 * read of the body and the rest through `takeReady()` (the protocol's ready-iterator.ts), with the
 * same events, in the same order, as a reader that awaits each one; stopping mid-batch releases the body.
 */
import { type Event, type LanguageModel, type ReadyIterator, takeReady } from '@parlance/protocol';
import { encodeEvents } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.ts';
import { openaiCompatible } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';

const DELTAS = 1000;
const words = Array.from({ length: DELTAS }, (_, i) => `w${i} `);
const reply: Event[] = [
  { type: 'message-start' },
  { type: 'text-start', id: 't0' },
  ...words.map((delta): Event => ({ type: 'text-delta', id: 't0', delta })),
  { type: 'text-end', id: 't0' },
  { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: DELTAS } },
];
const wire = encodeEvents('openai_completions', reply);

/** A model whose upstream answers `wire` in one chunk (or that chunk, then nothing until cancelled). */
function upstream(options: { endless?: boolean } = {}) {
  const seen = { cancelled: false, reads: 0 };
  const fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          seen.reads++;
          if (seen.reads === 1) controller.enqueue(new TextEncoder().encode(wire));
          else if (!options.endless) controller.close();
          else return new Promise<void>(() => {});
        },
        cancel() {
          seen.cancelled = true;
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  const model = openaiCompatible({ id: 'local', baseURL: 'http://127.0.0.1:9/v1', env: {}, fetch, retry: false }).model('m');
  return { model, seen };
}

/** Reads with `next()` and, after each, whatever `takeReady()` hands out; counts the `next()` calls. */
async function readInBatches(iterator: AsyncIterator<Event>): Promise<{ events: Event[]; nexts: number }> {
  const events: Event[] = [];
  let nexts = 0;
  for (;;) {
    nexts++;
    const result = await iterator.next();
    if (result.done) return { events, nexts };
    events.push(result.value);
    for (let event = takeReady(iterator); event !== undefined; event = takeReady(iterator)) events.push(event);
  }
}

describe('a body read in one piece', () => {
  it('comes out of the provider model with one next() per read, the same events as awaiting each', async () => {
    const awaited = await drain(upstream().model.stream({ messages: ask('Hi') }));
    const { events, nexts } = await readInBatches(upstream().model.stream({ messages: ask('Hi') })[Symbol.asyncIterator]());
    expect(events).toEqual(awaited);
    expect(events.filter((e) => e.type === 'text-delta').map((e) => (e as { delta: string }).delta)).toEqual(words);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    // The first read, then the end: not one per event.
    expect(nexts).toBeLessThanOrEqual(4);
  });

  it('releases the body when the reader stops in the middle of a batch', async () => {
    const { model, seen } = upstream({ endless: true });
    const iterator = model.stream({ messages: ask('Hi') })[Symbol.asyncIterator]() as ReadyIterator<Event>;
    await iterator.next();
    for (let i = 0; i < 10; i++) expect(iterator.takeReady()).toBeDefined();
    await iterator.return?.();
    expect(seen.cancelled).toBe(true);
    expect(iterator.takeReady()).toBeUndefined();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('crosses the run loop as a batch: the engine asks the model for each event with next() only when none is held', async () => {
    let nexts = 0;
    let takes = 0;
    const counted: LanguageModel = {
      provider: 'test',
      modelId: 'm',
      dialect: 'test',
      stream() {
        let at = 0;
        const iterator: ReadyIterator<Event> = {
          next: async () => {
            nexts++;
            return at < reply.length ? { done: false, value: reply[at++]! } : { done: true, value: undefined };
          },
          takeReady: () => {
            if (at >= reply.length) return undefined;
            takes++;
            return reply[at++];
          },
          [Symbol.asyncIterator]: () => iterator,
        };
        return iterator;
      },
    };
    const engine = createEngine({ model: counted, generateId: (() => { let n = 0; return () => `id${n++}`; })() });
    const { events } = await readInBatches(engine.streamChat({ prompt: 'Hi' })[Symbol.asyncIterator]());
    expect(events.filter((e) => e.type === 'text-delta')).toHaveLength(DELTAS);
    expect(events.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
    expect(nexts).toBeLessThanOrEqual(2);
    expect(takes).toBe(reply.length - 1);
  });
});
