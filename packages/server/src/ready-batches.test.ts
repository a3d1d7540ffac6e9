/**
 * What the runner holds already crosses the server as a batch: the scrub/sign stage, the run's
 * execution and the store's reader take it through `takeReady()` (the protocol's ready-iterator.ts),
 * not with a `next()` per event, and the client still gets every event, in order, once.
 */
import { type Event, LEAN_WIRE_ACCEPT, type ReadyIterator } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { chatRequest, textOf, userThread } from '../test/helpers.ts';
import { createParlanceApp } from './handler.ts';
import { createMemoryRunStore } from './memory-run-store.ts';
import type { ChatRunner } from './server-options.ts';

const DELTAS = 1000;
const words = Array.from({ length: DELTAS }, (_, i) => `w${i} `);
const usage = { inputTokens: 3, outputTokens: DELTAS };
const run: Event[] = [
  { type: 'step-start', step: 0 },
  { type: 'message-start' },
  { type: 'text-start', id: 't' },
  ...words.map((delta): Event => ({ type: 'text-delta', id: 't', delta })),
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: 'stop', usage },
  { type: 'step-finish', step: 0, finishReason: 'stop', usage },
  { type: 'chat-finish', haltReason: 'completed', usage },
];

/** The events of an SSE body, either wire (`data: ` on wire 1, `data:` on wire 2; comments skipped). */
const eventsOf = async (response: Response): Promise<Event[]> =>
  (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as Event);

/** A runner holding the whole run at once; counts how it is read. */
function heldRunner() {
  const counts = { nexts: 0, takes: 0 };
  const runner: ChatRunner = () => {
    let at = 0;
    const iterator: ReadyIterator<Event> = {
      next: async () => {
        counts.nexts++;
        return at < run.length ? { done: false, value: run[at++]! } : { done: true, value: undefined };
      },
      takeReady: () => {
        if (at >= run.length) return undefined;
        counts.takes++;
        return run[at++];
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  };
  return { runner, counts };
}

describe('a run the runner holds at once', () => {
  it.each([
    ['wire 1', {}],
    ['wire 2 (lean)', { accept: LEAN_WIRE_ACCEPT }],
  ] as [string, Record<string, string>][])('is stored and streamed whole with one next() from the runner (%s)', async (_name, headers) => {
    const { runner, counts } = heldRunner();
    const store = createMemoryRunStore();
    const app = createParlanceApp({ run: runner, models: [{ id: 'mock:echo', provider: 'mock' }], store });
    const response = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'held' }, headers));
    expect(response.headers.get('x-parlance-wire')).toBe(headers.accept ? '2' : null);
    const events = await eventsOf(response);
    expect(textOf(events)).toBe(words.join(''));
    expect(events.filter((e) => e.type === 'chat-finish')).toHaveLength(1);
    expect(counts.nexts).toBe(1);
    expect(counts.takes).toBe(run.length - 1);
    // Stored once each, in order: a reader from the start gets the same run.
    const again = await eventsOf(await app.request(`/runs/${response.headers.get('x-parlance-run-id')}/events`));
    expect(textOf(again)).toBe(words.join(''));
  });
});
