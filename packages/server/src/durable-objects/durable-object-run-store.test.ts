// The Durable Object store against its object class in this process (each object a
// `ParlanceRunStoreObject`, reached through `fetch` as through a namespace binding); the
// same suite runs against real Durable Objects in workerd (test-workerd/durable-objects.test.ts).
import { expect, it } from 'vitest';
import { runStoreConformance } from '../../test/run-store-conformance.ts';
import { createDurableObjectRunStore } from './durable-object-run-store.ts';
import { inProcessNamespace } from '../../test/in-process-objects.ts';

runStoreConformance('durable objects (in process)', { makeStore: (limits) => createDurableObjectRunStore({ namespace: inProcessNamespace(), limits }) });

it('spreads runs over shards by request key, and finds each run again from its id alone', async () => {
  const store = createDurableObjectRunStore({ namespace: inProcessNamespace(), shards: 4, limits: { maxRunning: 8 } });
  const runs = [];
  for (let i = 0; i < 8; i++) runs.push((await store.create({ id: `run_${i}`, requestKey: `p:req${i}`, createdAt: 0 })).run);
  expect(new Set(runs.map((r) => r.id.split('.s')[1])).size).toBeGreaterThan(1);
  for (const run of runs) {
    await store.append(run.id, { type: 'text-delta', id: 't', delta: run.id });
    expect((await store.get(run.id))?.requestKey).toBe(run.requestKey);
    expect((await store.create({ id: 'run_again', requestKey: run.requestKey, createdAt: 0 })).run.id).toBe(run.id);
  }
  const first = runs[0]!;
  await store.append(first.id, { type: 'chat-finish', haltReason: 'completed', usage: {} });
  await store.finish(first.id);
  const seen = [];
  for await (const stored of store.follow(first.id, -1)) seen.push(stored.event.type);
  expect(seen).toEqual(['text-delta', 'chat-finish']);
});
