/**
 * The gateway's spend windows and response cache on Durable Objects (`ParlanceGatewayStoreObject`):
 * every Worker isolate, in any location, keeps one budget per key and one cache, where the memory
 * stores would keep one per isolate.
 */
import { ParlanceError } from '@parlance/protocol';
import { type CachedAnswer, cacheBounds, type ResponseCacheBounds, type ResponseCacheStore } from '../gateway/response-cache-store.ts';
import type { SpendStore, SpendWindow } from '../gateway/spend-store.ts';
import type { RunObjectNamespace } from './durable-object-run-store.ts';

/**
 * Options of {@link durableObjectSpendStore} and {@link durableObjectResponseCacheStore}.
 *
 * @example
 * const options: DurableObjectGatewayStoreOptions = { namespace: env.PARLANCE_GATEWAY };
 */
export interface DurableObjectGatewayStoreOptions {
  /** The binding of `ParlanceGatewayStoreObject` (e.g. `env.PARLANCE_GATEWAY`). */
  namespace: RunObjectNamespace;
  /** Object names start with it (default 'parlance-gw'): separate budgets and caches for separate names. */
  name?: string;
}

function unavailable(cause: unknown): ParlanceError {
  return new ParlanceError('store_unavailable', "The gateway's Durable Object store is not available", { status: 503, retryAfterMs: 1_000, cause });
}

async function call<T>(options: DurableObjectGatewayStoreOptions, object: string, path: string, body: unknown): Promise<T> {
  const { namespace } = options;
  let answer: T & { error?: { message?: string } };
  let ok: boolean;
  try {
    const stub = namespace.get(namespace.idFromName(`${options.name ?? 'parlance-gw'}:${object}`) as never);
    const response = await stub.fetch(`https://gateway-store.parlance${path}`, { method: 'POST', body: JSON.stringify(body) });
    ok = response.ok;
    answer = (await response.json()) as typeof answer;
  } catch (error) {
    throw unavailable(error);
  }
  if (!ok) throw unavailable(new Error(answer.error?.message ?? 'The object refused the call'));
  return answer;
}

/**
 * Spend windows on Durable Objects, one object per principal: each holds its open window and deletes
 * it when it ends. A failing object is `store_unavailable` (the gateway then refuses budgeted calls, 503).
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, spendStore: durableObjectSpendStore({ namespace: env.PARLANCE_GATEWAY }) });
 * ```
 */
export function durableObjectSpendStore(options: DurableObjectGatewayStoreOptions): SpendStore {
  return {
    add: (key, usd, windowMs, now) => call<SpendWindow>(options, `spend:${key}`, '/spend/add', { usd, windowMs, now }),
    async get(key, now) {
      const window = await call<Partial<SpendWindow>>(options, `spend:${key}`, '/spend/get', { now });
      return typeof window.usd === 'number' && typeof window.resetAt === 'number' ? { usd: window.usd, resetAt: window.resetAt } : undefined;
    },
  };
}

/**
 * The response cache in one Durable Object per cache name, within its bounds (defaults: 1,000 entries,
 * 32 MiB counted as UTF-16 code units, 1 MiB an entry; the oldest out first, a read does not reorder).
 * One object serves every read and write of the cache, so its throughput is one object's (about a
 * thousand small calls a second): give busy gateways several names. A failing object is
 * `store_unavailable` (the gateway then treats it as a miss).
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, cache: { store: durableObjectResponseCacheStore({ namespace: env.PARLANCE_GATEWAY }) } });
 * ```
 */
export function durableObjectResponseCacheStore(options: DurableObjectGatewayStoreOptions & ResponseCacheBounds): ResponseCacheStore {
  const bounds = cacheBounds(options);
  return {
    async get(key) {
      const entry = await call<Partial<CachedAnswer>>(options, 'cache', '/cache/get', { key, now: Date.now() });
      return typeof entry.body === 'string' && typeof entry.contentType === 'string' ? { body: entry.body, contentType: entry.contentType } : undefined;
    },
    async put(key, answer, ttlMs) {
      await call(options, 'cache', '/cache/put', { key, body: answer.body, contentType: answer.contentType, ttlMs, now: Date.now(), bounds });
    },
  };
}
