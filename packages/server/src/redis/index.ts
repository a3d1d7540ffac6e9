export { createRedisRunStore, type RedisRunStore, type RedisRunStoreOptions } from './redis-run-store.ts';
