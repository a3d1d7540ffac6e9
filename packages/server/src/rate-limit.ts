/**
 * One rate limiter for the chat server and the gateway, counting in a store every instance
 * shares: in memory for one process (`memoryRateLimitStore`), Redis for several
 * (`redisRateLimitStore` from `@parlance/server/redis`), Durable Objects for Workers
 * (`durableObjectRateLimitStore` from `@parlance/server/durable-objects`). A fixed window per key: the first hit
 * of a window starts it, at most `requests` hits pass until it ends; a refused hit is told how
 * many seconds remain (`Retry-After`). Give the server's `rateLimit` option `serverRateLimit(limiter)`
 * and the gateway's `gatewayRateLimit(store)`, on the same store, and they count in one place.
 */
import type { Principal } from './server-options.ts';
import type { GatewayPrincipal } from './gateway/keys.ts';
import { errorResponse } from './error-response.ts';

/**
 * Where hits are counted: `hit` adds one to `key`'s window (starting a window of `windowMs`
 * when none is open) and says the count and when the window ends (epoch ms).
 *
 * @example
 * const { count, resetAt } = await store.hit('user:42', 60_000, Date.now());
 */
export interface RateLimitStore {
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

/**
 * A limiter's answer: pass (with the hits left in the window), or refuse for `retryAfterSeconds`.
 *
 * @example
 * const result: RateLimitResult = await limiter.check('user:42');
 * if (!result.ok) console.log(`retry in ${result.retryAfterSeconds}s`);
 */
export type RateLimitResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

/**
 * Options of {@link createRateLimiter}.
 *
 * @example
 * const options: RateLimiterOptions = { store: memoryRateLimitStore(), requests: 60, windowMs: 60_000 };
 */
export interface RateLimiterOptions {
  store: RateLimitStore;
  /** Hits allowed per key and window. */
  requests: number;
  windowMs: number;
  /** Prefixes every key (several limiters on one store). Default `rl:`. */
  prefix?: string;
  now?: () => number;
}

/**
 * A limiter: `check(key)` counts a hit and says whether it passes.
 *
 * @example
 * const limiter = createRateLimiter({ store: memoryRateLimitStore(), requests: 20, windowMs: 60_000 });
 * const result = await limiter.check(`user:${user.id}`);
 */
export interface RateLimiter {
  check(key: string): Promise<RateLimitResult>;
}

/**
 * A fixed-window rate limiter on a store.
 *
 * @example
 * const limiter = createRateLimiter({ store: redisRateLimitStore(redis), requests: 20, windowMs: 60_000 });
 * createParlanceApp({ models, run, authorize, rateLimit: serverRateLimit(limiter) });
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  if (!(options.requests > 0) || !(options.windowMs > 0)) throw new RangeError('A rate limit needs requests > 0 and windowMs > 0');
  const prefix = options.prefix ?? 'rl:';
  const now = options.now ?? Date.now;
  return {
    async check(key) {
      const at = now();
      const { count, resetAt } = await options.store.hit(prefix + key, options.windowMs, at);
      if (count <= options.requests) return { ok: true, remaining: options.requests - count };
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((resetAt - at) / 1000)) };
    },
  };
}

/**
 * Options of {@link memoryRateLimitStore}.
 *
 * @example
 * memoryRateLimitStore({ maxKeys: 50_000 });
 */
export interface MemoryRateLimitStoreOptions {
  /** Bound on keys held: past it, ended windows are dropped, then the oldest (default 10,000). */
  maxKeys?: number;
}

/**
 * Counts in this process's memory (one instance; several instances need `redisRateLimitStore`).
 * Holds at most `maxKeys` windows.
 *
 * @example
 * const store = memoryRateLimitStore();
 */
export function memoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const maxKeys = options.maxKeys ?? 10_000;
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    async hit(key, windowMs, now) {
      let window = windows.get(key);
      if (!window || now >= window.resetAt) {
        windows.delete(key);
        if (windows.size >= maxKeys) {
          for (const [k, w] of windows) if (now >= w.resetAt) windows.delete(k);
          // Still full of open windows: drop the oldest (a Map iterates in insertion order).
          for (const k of windows.keys()) {
            if (windows.size < maxKeys) break;
            windows.delete(k);
          }
        }
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count++;
      return { count: window.count, resetAt: window.resetAt };
    },
  };
}

/**
 * The chat server's `rateLimit` option from a limiter: keyed by the principal's id (or the
 * client's address header, else one shared key, for anonymous callers); a refused request
 * gets 429 `rate_limited` with `Retry-After`.
 *
 * @example
 * createParlanceApp({ models, run, authorize, rateLimit: serverRateLimit(limiter) });
 */
export function serverRateLimit(
  limiter: RateLimiter,
  keyOf: (principal: Principal | undefined, request: Request) => string = (principal, request) =>
    principal ? `user:${principal.id}` : `ip:${request.headers.get('cf-connecting-ip') ?? request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() ?? 'anonymous'}`,
): (principal: Principal | undefined, request: Request) => Promise<Response | undefined> {
  return async (principal, request) => {
    const result = await limiter.check(keyOf(principal, request));
    if (result.ok) return undefined;
    const response = errorResponse(429, 'rate_limited', `Too many requests; retry after ${result.retryAfterSeconds}s`);
    response.headers.set('retry-after', String(result.retryAfterSeconds));
    return response;
  };
}

/**
 * The gateway's `rateLimit` option on a shared store: each key's own `rateLimit`
 * (`{ requests, windowMs }` of its principal) counted in `store`, so every gateway instance
 * (and a chat server on the same store) counts together. A principal without one is not limited.
 *
 * @example
 * createGateway({ routes, authorize: staticKeys(keys), rateLimit: gatewayRateLimit(redisRateLimitStore(redis)) });
 */
export function gatewayRateLimit(store: RateLimitStore, options: { now?: () => number } = {}): (principal: GatewayPrincipal) => Promise<undefined | { retryAfterSeconds: number }> {
  const now = options.now ?? Date.now;
  return async (principal) => {
    const limit = principal.rateLimit;
    if (!limit) return undefined;
    const result = await createRateLimiter({ store, requests: limit.requests, windowMs: limit.windowMs, prefix: 'rl:gateway:', now }).check(principal.id);
    return result.ok ? undefined : { retryAfterSeconds: result.retryAfterSeconds };
  };
}
