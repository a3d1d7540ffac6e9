export {
  type RedisResponseCacheStoreOptions,
  type RedisSpendStoreOptions,
  redisResponseCacheStore,
  redisSpendStore,
} from './redis-gateway-stores.ts';
export { type RedisRateLimitStoreOptions, redisRateLimitStore } from './redis-rate-limit-store.ts';
export { createRedisRunStore, type RedisRunStore, type RedisRunStoreOptions } from './redis-run-store.ts';
