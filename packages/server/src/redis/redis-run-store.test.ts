import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
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
