// The storage of the Durable Object that runs runs (`parlanceRunObject`), in workerd: it passes the
// run store contract like every store, and what it stores comes back whole when the object is reset
// (an eviction, a deploy): going and finished runs, their request keys, values, cancels, and an
// event larger than one storage value.
import { env, runInDurableObject } from 'cloudflare:test';
import type { Event } from '@parlance/protocol';
import { expect, it } from 'vitest';
import { createDurableObjectRunStore, type RunObjectNamespace } from '../src/durable-objects/index.ts';
import type { StoredEvent } from '../src/run-store.ts';
import { runStoreConformance } from '../test/run-store-conformance.ts';

const binding = (env as unknown as { PARLANCE_DURABLE_RUNS: DurableObjectNamespace }).PARLANCE_DURABLE_RUNS;
const namespace = binding as unknown as RunObjectNamespace;
let n = 0;

runStoreConformance('durable objects that run runs (workerd)', { makeStore: (limits) => createDurableObjectRunStore({ namespace, name: `stored-${++n}`, limits, runInObject: true }) });

async function reset(name: string) {
  await runInDurableObject(binding.get(binding.idFromName(`${name}-0`)), (_instance, state) => state.abort('reset by the test')).catch(() => {});
}

async function all(source: AsyncIterable<StoredEvent>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const stored of source) out.push(stored.event);
  return out;
}

it('reads back after a reset what it stored: runs, request keys, values, cancels, an event split over several keys', async () => {
  const name = `restart-${++n}`;
  const store = createDurableObjectRunStore({ namespace, name, runInObject: true, limits: { leaseMs: 60_000 } });
  // Over what one storage value takes (2 MB): stored in parts, read back whole; a part ends inside a surrogate pair.
  const big: Event = { type: 'text-delta', id: 't', delta: '€😀'.repeat(400_000) };
  const done = (await store.create({ id: 'run_done', requestKey: 'p:done', createdAt: 1 })).run.id;
  const doneEvents: Event[] = [{ type: 'message-start' }, big, { type: 'chat-finish', haltReason: 'completed', usage: {} }];
  for (const event of doneEvents) await store.append(done, event);
  await store.finish(done);
  const going = (await store.create({ id: 'run_going', requestKey: 'p:going', createdAt: 2 })).run.id;
  await store.append(going, { type: 'text-delta', id: 't', delta: 'so far' });
  await store.cancel(going);
  await store.setValue('chat:1', 'run_going', 60_000);

  await reset(name);

  expect(await all(store.follow(done, -1))).toEqual(doneEvents);
  expect(await store.get(done)).toMatchObject({ status: 'finished', createdAt: 1 });
  expect((await store.create({ id: 'run_other', requestKey: 'p:done', createdAt: 3 })).created).toBe(false);
  expect(await store.get(going)).toMatchObject({ status: 'running', cancelRequested: true });
  expect(await store.renewLease(going)).toEqual({ cancelled: true });
  expect(await store.getValue('chat:1')).toBe('run_going');
  // It goes on where it stopped: the next event is number 1.
  expect((await store.append(going, { type: 'chat-finish', haltReason: 'cancelled', usage: {} })).seq).toBe(1);
  await store.finish(going);
  expect(await all(store.follow(going, -1))).toEqual([
    { type: 'text-delta', id: 't', delta: 'so far' },
    { type: 'chat-finish', haltReason: 'cancelled', usage: {} },
  ]);
});
