/**
 * The rate limiter's store on Redis: every instance on one Redis counts the same windows.
 * One Lua script per hit (atomic, one round trip): INCR the window's key and, on its first
 * hit, give it the window as its expiry; the window's end is read back from the key's TTL, so
 * Redis's clock decides it, the same for every instance.
 * https://redis.io/docs/latest/develop/interact/programmability/eval-intro/
 */
import type { Redis } from 'ioredis';
import type { RateLimitStore } from '../rate-limit.ts';

// KEYS: the window. ARGV: windowMs. Returns {count, ms left}.
const HIT = `local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); left = tonumber(ARGV[1]) end
return {count, left}`;

/**
 * Options of {@link redisRateLimitStore}.
 *
 * @example
 * const options: RedisRateLimitStoreOptions = { redis, prefix: 'chat:' };
 */
export interface RedisRateLimitStoreOptions {
  redis: Redis;
  /** Key prefix (default `parlance:`); the limiter adds its own. */
  prefix?: string;
}

/**
 * A rate limit store on Redis (`ioredis` client you pass), shared by every instance that uses it.
 * Each window is one key that expires with it: Redis holds only open windows.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * const limiter = createRateLimiter({ store: redisRateLimitStore({ redis: new Redis(process.env.REDIS_URL!) }), requests: 20, windowMs: 60_000 });
 * ```
 */
export function redisRateLimitStore(options: RedisRateLimitStoreOptions): RateLimitStore {
  const prefix = options.prefix ?? 'parlance:';
  return {
    async hit(key, windowMs, now) {
      const [count, left] = (await options.redis.eval(HIT, 1, prefix + key, String(Math.ceil(windowMs)))) as [number, number];
      return { count, resetAt: now + left };
    },
  };
}
