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
