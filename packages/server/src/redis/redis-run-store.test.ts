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
