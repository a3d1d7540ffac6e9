// Backpressure end to end through the server (issue #26): an endless upstream, a store slower than
// the upstream (each write takes a timer turn, as a round trip to Redis or a Durable Object does), and
// a reader that never reads. The upstream is read no faster than the store accepts events, for the
// memory store and the Durable Object store (Redis, with a real redis-server: test/redis-faults.test.ts),
// and a cancel still ends the run exactly once.
import type { Event, LanguageModel } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { chatRequest, readAll, userThread } from '../test/helpers.ts';
import { createDurableObjectRunStore } from './durable-objects/durable-object-run-store.ts';
import { inProcessNamespace } from '../test/in-process-objects.ts';
import { engineRunner } from './engine-runner.ts';
import { createParlanceApp } from './handler.ts';
import { createMemoryRunStore } from './memory-run-store.ts';
import type { RunStore } from './run-store.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** A model that streams 1 KiB text deltas until it is stopped (at most 100,000, so a failing test ends). */
function endlessModel() {
  const state = { read: 0 };
  const model: LanguageModel = {
    provider: 'e',
    modelId: 'endless',
    dialect: 'openai_completions',
    async *stream() {
      yield { type: 'text-start', id: 't0' };
      for (let i = 0; i < 100_000; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        state.read++;
        yield { type: 'text-delta', id: 't0', delta: 'x'.repeat(1024) };
      }
    },
  };
  return { model, state };
}

/** Counts the deltas a store accepted; every write waits a timer turn first (a slow store). */
function slow(store: RunStore) {
  const counted = { deltas: 0 };
  const wrapped: RunStore = {
    ...store,
    async append(runId, event, at) {
      await tick();
      const result = await store.append(runId, event, at);
      if (event.type === 'text-delta') counted.deltas++;
      return result;
    },
  };
  return { store: wrapped, counted };
}

const QUEUE = 16 * 1024;

describe('backpressure through the server', () => {
  it.each([
    { name: 'memory', make: () => createMemoryRunStore() },
    { name: 'durable objects', make: () => createDurableObjectRunStore({ namespace: inProcessNamespace() }) },
  ])('$name store: an endless upstream is read no faster than the store accepts events; a cancel ends it once', async ({ make }) => {
    const { model, state } = endlessModel();
    const { store, counted } = slow(make());
    const app = createParlanceApp({
      models: [{ id: 'e:endless', provider: 'e' }],
      store,
      run: engineRunner({ engine: { resolveModel: () => model, maxQueuedBytes: QUEUE } }),
    });
    const response = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'endless' })); // never read
    const runId = response.headers.get('x-parlance-run-id')!;
    for (let i = 0; i < 2_000 && counted.deltas < 200; i++) await tick();
    expect(counted.deltas).toBeGreaterThanOrEqual(200);
    // Read but not stored: at most the queue's bound in 1 KiB deltas (1,088 bytes each as counted), the
    // event being written and the one the model is on.
    expect(state.read - counted.deltas).toBeLessThanOrEqual(Math.ceil(QUEUE / 1088) + 4);
    expect((await app.request(`/runs/${runId}/cancel`, { method: 'POST' })).status).toBe(202);
    await response.body?.cancel();
    const frames = await readAll(await app.request(`/runs/${runId}/events`));
    const events = frames.map((f) => f.data as Event);
    expect(frames.map((f) => Number(f.id))).toEqual(frames.map((_, i) => i));
    expect(events.filter((e) => e.type === 'chat-finish')).toEqual([expect.objectContaining({ haltReason: 'cancelled' })]);
    expect(events.filter((e) => e.type === 'text-delta').length).toBeGreaterThanOrEqual(200);
  }, 30_000);
});
