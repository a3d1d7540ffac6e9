import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runStoreConformance } from '../../test/run-store-conformance.ts';
import { type RedisServer, startRedis } from '../../test/redis-server.ts';
import { createRedisRunStore, type RedisRunStore } from './redis-run-store.ts';

let server: RedisServer;
const clients = new Map<RedisRunStore, Redis>();
let n = 0;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server.stop());

runStoreConformance('redis', {
  makeStore: (limits) => {
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    // A prefix per store: the maxRunning count is per prefix, like separate deployments on one Redis.
    const store = createRedisRunStore({ redis, prefix: `t${++n}:`, limits });
    clients.set(store, redis);
    return store;
  },
  close: async (store) => {
    await (store as RedisRunStore).close();
    await clients.get(store as RedisRunStore)?.quit();
  },
});

it('turns a Redis that cannot be reached into a typed, retryable store_unavailable error', async () => {
  const { freePort } = await import('../../test/redis-server.ts');
  const redis = new Redis(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  redis.on('error', () => {});
  const store = createRedisRunStore({ redis });
  await expect(store.create({ id: 'run_down', requestKey: 'p:down', createdAt: 0 })).rejects.toMatchObject({ code: 'store_unavailable', status: 503, retryable: true });
  await expect(store.health()).rejects.toMatchObject({ code: 'store_unavailable' });
  await store.close();
  redis.disconnect();
});

it('keeps finished runs within maxFinishedBytes: the oldest are evicted and answer run_expired; their request keys are free', async () => {
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  const store = createRedisRunStore({ redis, prefix: `budget${Date.now()}:`, maxFinishedBytes: 5_000 });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { run } = await store.create({ id: `b${i}`, requestKey: `p:b${i}`, createdAt: 0 });
      await store.append(run.id, { type: 'text-delta', id: 't', delta: 'x'.repeat(2_000) });
      await store.append(run.id, { type: 'chat-finish', haltReason: 'completed', usage: {} });
      await store.finish(run.id);
      ids.push(run.id);
    }
    // About 2 KB each: the last two fit the 5,000 bytes, the first three were evicted.
    for (const id of ids.slice(0, 3)) {
      expect(await store.get(id)).toMatchObject({ id, status: 'finished', expired: true });
      const read = (async () => {
        for await (const _ of store.follow(id, -1));
      })();
      await expect(read).rejects.toMatchObject({ code: 'run_expired' });
    }
    for (const id of ids.slice(3)) {
      expect(await store.get(id)).not.toHaveProperty('expired');
      const events = [];
      for await (const stored of store.follow(id, -1)) events.push(stored.event.type);
      expect(events).toEqual(['text-delta', 'chat-finish']);
    }
    expect((await store.create({ id: 'again', requestKey: 'p:b0', createdAt: 0 })).created).toBe(true);
  } finally {
    await store.close();
    await redis.quit();
  }
});

it('claim: of many instances claiming a lapsed run at once exactly one wins, gets the stored events, and fences the last owner out', async () => {
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  const prefix = `claim${Date.now()}:`;
  // Ten instances on one Redis, each with its own store (connections), as ten processes would be.
  const connections = Array.from({ length: 10 }, () => redis.duplicate());
  const stores = connections.map((connection) => createRedisRunStore({ redis: connection, prefix, limits: { leaseMs: 200 } }));
  const [first] = stores as [RedisRunStore];
  try {
    await first.create({ id: 'c1', requestKey: 'p:c1', createdAt: 0, owner: 'dead' });
    await first.append('c1', { type: 'step-start', step: 0 }, 0, 'dead');
    await first.append('c1', { type: 'message-start', messageId: 'm1' }, 1, 'dead');
    // Alive: nobody may take it; another owner may not write.
    expect(await first.claim('c1', 'early')).toBeUndefined();
    await expect(first.append('c1', { type: 'text-delta', id: 't', delta: 'x' }, 2, 'someone-else')).rejects.toMatchObject({ code: 'run_lost' });
    // The owner stops renewing: after the lease, all claim at once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const claims = await Promise.all(stores.map((store, i) => store.claim('c1', `owner${i}`)));
    const won = claims.flatMap((claim, i) => (claim ? [{ claim, i }] : []));
    expect(won).toHaveLength(1);
    expect(won[0]!.claim).toEqual({ reason: 'takeover', events: [{ type: 'step-start', step: 0 }, { type: 'message-start', messageId: 'm1' }] });
    const winner = `owner${won[0]!.i}`;
    // The last owner was only slow: its writes and renewals are refused from now on; the winner's go on.
    await expect(first.append('c1', { type: 'text-delta', id: 't', delta: 'late' }, 2, 'dead')).rejects.toMatchObject({ code: 'run_lost' });
    expect(await first.renewLease('c1', 'dead')).toEqual({ cancelled: true });
    expect(await first.renewLease('c1', winner)).toEqual({ cancelled: false });
    expect((await first.append('c1', { type: 'step-restarted', step: 0, messageId: 'm1', reason: 'takeover' }, 2, winner)).seq).toBe(2);
    // A release hands it over at once (no lease wait), named as a hand-over.
    await first.release('c1', winner);
    const handed = await stores[3]!.claim('c1', 'next');
    expect(handed?.reason).toBe('handover');
    expect(handed?.events).toHaveLength(3);
    // A run whose chat-finish is stored is not taken over, even with its lease lapsed: it ends as it is.
    await first.append('c1', { type: 'chat-finish', haltReason: 'completed', usage: {} }, 3, 'next');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await first.claim('c1', 'late')).toBeUndefined();
  } finally {
    for (const store of stores) await store.close();
    for (const connection of connections) await connection.quit();
    await redis.quit();
  }
});
