export { createRedisRunStore, type RedisRunStore, type RedisRunStoreOptions } from './redis-run-store.ts';
export { redisRateLimitStore, type RedisRateLimitStoreOptions } from './redis-rate-limit-store.ts';
