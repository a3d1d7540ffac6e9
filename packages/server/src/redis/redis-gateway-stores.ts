/**
 * The gateway's spend windows and response cache on Redis: every gateway instance on one Redis keeps
 * one budget per key and one cache. Each operation is one Lua script (atomic, one round trip), and
 * Redis's clock (`TIME`) decides windows and expiry, the same for every instance.
 * https://redis.io/docs/latest/develop/interact/programmability/eval-intro/
 */
import { ParlanceError } from '@parlance/protocol';
import type { Redis } from 'ioredis';
import { type CachedAnswer, cacheBounds, type ResponseCacheBounds, type ResponseCacheStore } from '../gateway/response-cache-store.ts';
import type { SpendStore } from '../gateway/spend-store.ts';

// KEYS: the window. ARGV: usd, windowMs. Returns {total as a string, ms left}. The first add opens the window.
const SPEND_ADD = `local total = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); left = tonumber(ARGV[2]) end
return {total, left}`;

// KEYS: the window. Returns {total, ms left} or nil when no window is open.
const SPEND_GET = `local total = redis.call('GET', KEYS[1])
if not total then return nil end
return {total, redis.call('PTTL', KEYS[1])}`;

// KEYS: entry, index (zset of entries by expiry), bytes (counter), sizes (hash entry -> bytes), sequence.
// ARGV: value, ttlMs, maxEntries, maxBytes, size. Forgets expired entries, keeps this one, then
// drops the entries that expire first (the oldest, as all share one ttl) until both bounds hold.
// Every key carries one hash tag, so the script's keys sit in one slot on a cluster.
const CACHE_PUT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function forget(k)
  local size = redis.call('HGET', KEYS[4], k)
  if size then redis.call('DECRBY', KEYS[3], size); redis.call('HDEL', KEYS[4], k) end
  redis.call('ZREM', KEYS[2], k)
end
for _, k in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now * 1000, 'LIMIT', 0, 1000)) do forget(k) end
forget(KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
-- The score is the expiry in microsecond-sized steps plus a sequence, so entries put in one millisecond keep their order.
local seq = redis.call('INCR', KEYS[5]) % 1000
redis.call('ZADD', KEYS[2], (now + tonumber(ARGV[2])) * 1000 + seq, KEYS[1])
redis.call('HSET', KEYS[4], KEYS[1], ARGV[5])
local bytes = redis.call('INCRBY', KEYS[3], ARGV[5])
local count = redis.call('ZCARD', KEYS[2])
while count > tonumber(ARGV[3]) or bytes > tonumber(ARGV[4]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  forget(oldest)
  redis.call('DEL', oldest)
  bytes = tonumber(redis.call('GET', KEYS[3]) or '0')
  count = count - 1
end
return count`;

function unavailable(cause: unknown): ParlanceError {
  return new ParlanceError('store_unavailable', "The gateway's Redis store is not available", { status: 503, retryAfterMs: 1_000, cause });
}

/**
 * Options of {@link redisSpendStore}.
 *
 * @example
 * ```ts
 * const options: RedisSpendStoreOptions = { redis, prefix: 'gw:' };
 * ```
 */
export interface RedisSpendStoreOptions {
  /**
   * An `ioredis` client. Give it `maxRetriesPerRequest` and `commandTimeout` so a Redis that is down
   * turns into `store_unavailable` soon instead of requests that wait.
   */
  redis: Redis;
  /** Key prefix (default `parlance:`); the store adds `spend:` and the principal's id. */
  prefix?: string;
}

/**
 * Spend windows on Redis, one key per principal that expires with its window (Redis holds only open
 * windows, a few dozen bytes each). Throws `store_unavailable` when Redis does not answer.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { redisSpendStore } from '@parlance/server/redis';
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 1_000 });
 * createGateway({ routes, authorize, spendStore: redisSpendStore({ redis }) });
 * ```
 */
export function redisSpendStore(options: RedisSpendStoreOptions): SpendStore {
  const prefix = `${options.prefix ?? 'parlance:'}spend:`;
  const window = (reply: [string, number] | null, now: number) => (reply ? { usd: Number.parseFloat(reply[0]), resetAt: now + Math.max(0, reply[1]) } : undefined);
  return {
    async add(key, usd, windowMs, now) {
      const reply = await options.redis.eval(SPEND_ADD, 1, prefix + key, String(usd), String(Math.ceil(windowMs))).catch((error: unknown) => Promise.reject(unavailable(error)));
      return window(reply as [string, number], now)!;
    },
    async get(key, now) {
      const reply = await options.redis.eval(SPEND_GET, 1, prefix + key).catch((error: unknown) => Promise.reject(unavailable(error)));
      return window(reply as [string, number] | null, now);
    },
  };
}

/**
 * Options of {@link redisResponseCacheStore}: the client, a key prefix and the bounds (defaults:
 * 1,000 entries, 32 MiB, 1 MiB an entry; bytes are the stored value's UTF-8 bytes and the key's).
 *
 * @example
 * ```ts
 * const options: RedisResponseCacheStoreOptions = { redis, maxEntries: 10_000, maxBytes: 256 * 1024 * 1024 };
 * ```
 */
export interface RedisResponseCacheStoreOptions extends ResponseCacheBounds {
  /** An `ioredis` client (see {@link RedisSpendStoreOptions.redis}). */
  redis: Redis;
  /** Key prefix (default `parlance:`); entries sit under `<prefix>{gateway-cache}:`. */
  prefix?: string;
}

/**
 * The response cache on Redis, shared by every instance: entries expire with their ttl, and within the
 * bounds the entries that expire first (the oldest) are dropped first (a read does not move an entry, as
 * it would in memory: reads stay one GET). Throws `store_unavailable` when Redis does not answer.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { redisResponseCacheStore } from '@parlance/server/redis';
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 1_000 });
 * createGateway({ routes, authorize, cache: { store: redisResponseCacheStore({ redis }), ttlMs: 60_000 } });
 * ```
 */
export function redisResponseCacheStore(options: RedisResponseCacheStoreOptions): ResponseCacheStore {
  const { maxEntries, maxBytes, maxEntryBytes } = cacheBounds(options);
  const base = `${options.prefix ?? 'parlance:'}{gateway-cache}:`;
  const keys = [`${base}index`, `${base}bytes`, `${base}sizes`, `${base}seq`];
  const bytes = new TextEncoder();
  return {
    async get(key) {
      const value = await options.redis.get(`${base}e:${key}`).catch((error: unknown) => Promise.reject(unavailable(error)));
      if (value === null) return undefined;
      const [body, contentType] = JSON.parse(value) as [string, string];
      return { body, contentType } satisfies CachedAnswer;
    },
    async put(key, answer, ttlMs) {
      const entry = `${base}e:${key}`;
      const value = JSON.stringify([answer.body, answer.contentType]);
      const size = bytes.encode(value).length + entry.length;
      if (size > maxEntryBytes) return;
      await options.redis
        .eval(CACHE_PUT, 5, entry, ...keys, value, String(Math.ceil(ttlMs)), String(maxEntries), String(maxBytes), String(size))
        .catch((error: unknown) => Promise.reject(unavailable(error)));
    },
  };
}
