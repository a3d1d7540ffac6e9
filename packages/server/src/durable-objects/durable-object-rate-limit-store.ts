/**
 * The rate limiter's store on Cloudflare Durable Objects: each key's window lives in its own
 * object (`ParlanceRateLimitObject`), so every Worker request, from any isolate or location,
 * counts in one place; Workers' memory is per isolate, where `memoryRateLimitStore` would
 * count each isolate apart.
 */
import { ParlanceError } from '@parlance/protocol';
import type { RateLimitStore } from '../rate-limit.ts';
import type { RunObjectNamespace } from './durable-object-run-store.ts';

/**
 * Options of {@link durableObjectRateLimitStore}.
 *
 * @example
 * const options: DurableObjectRateLimitStoreOptions = { namespace: env.PARLANCE_RATE_LIMITS };
 */
export interface DurableObjectRateLimitStoreOptions {
  /** The binding of `ParlanceRateLimitObject` (e.g. `env.PARLANCE_RATE_LIMITS`). */
  namespace: RunObjectNamespace;
  /** Object names are `${name}:${key}` (default 'parlance-rl'): separate counts for separate names. */
  name?: string;
}

function unavailable(cause: unknown): ParlanceError {
  return new ParlanceError('store_unavailable', 'The rate limit store is not available', { status: 503, retryAfterMs: 1_000, cause });
}

/**
 * A rate limit store on Durable Objects, one object per key: every Worker counts the same windows.
 * Each object holds one window and deletes it when it ends, so storage holds open windows only.
 * A failing object is a `store_unavailable` error (503).
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter({ store: durableObjectRateLimitStore({ namespace: env.PARLANCE_RATE_LIMITS }), requests: 20, windowMs: 60_000 });
 * createParlanceApp({ models, run, authorize, rateLimit: serverRateLimit(limiter) });
 * ```
 */
export function durableObjectRateLimitStore(options: DurableObjectRateLimitStoreOptions): RateLimitStore {
  const name = options.name ?? 'parlance-rl';
  return {
    async hit(key, windowMs, now) {
      const { namespace } = options;
      let answer: { count?: unknown; resetAt?: unknown; error?: { message?: string } };
      try {
        const object = namespace.get(namespace.idFromName(`${name}:${key}`) as never);
        const response = await object.fetch('https://rate-limit.parlance/hit', { method: 'POST', body: JSON.stringify({ windowMs, now }) });
        answer = (await response.json()) as typeof answer;
      } catch (error) {
        throw unavailable(error);
      }
      if (typeof answer.count !== 'number' || typeof answer.resetAt !== 'number') throw unavailable(new Error(answer.error?.message ?? 'No count in the answer'));
      return { count: answer.count, resetAt: answer.resetAt };
    },
  };
}
