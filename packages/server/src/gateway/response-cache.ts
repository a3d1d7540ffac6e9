/**
 * An opt-in exact-match response cache: a non-streamed answer kept under its key (the principal, the
 * caller's format, the route name and the decoded request), so the same request from the same key is
 * answered again without an upstream call. Never shared across keys. Kept in a `ResponseCacheStore`
 * (this process's memory by default, Redis for several instances), bounded by entries and bytes.
 */
import type { ModelRequest } from '@parlance/protocol';
import type { GatewayPrincipal } from './keys.ts';
import { memoryResponseCacheStore, type ResponseCacheBounds, type ResponseCacheStore } from './response-cache-store.ts';

/**
 * The cache's settings: bounds of the default memory store (1,000 entries, 32 MiB, 1 MiB an entry),
 * entries' lifetime (`ttlMs`, default 10 minutes), or a shared `store` (which has its own bounds).
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, cache: { maxEntries: 500, ttlMs: 60_000 } });
 * createGateway({ routes, authorize, cache: { store: redisResponseCacheStore({ redis }) } });
 * ```
 */
export interface ResponseCacheOptions extends ResponseCacheBounds {
  ttlMs?: number;
  store?: ResponseCacheStore;
}

/** JSON with object keys sorted, so two spellings of one request are one key. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The cache over a store. `get` and `put` throw what the store throws.
 *
 * @example
 * ```ts
 * const cache = createResponseCache({ maxEntries: 100 });
 * const key = await cache.keyOf(principal, 'openai_completions', 'fast', request);
 * const hit = (await cache.get(key)) ?? (await cache.put(key, await answer()));
 * ```
 */
export function createResponseCache(options: ResponseCacheOptions = {}) {
  const store = options.store ?? memoryResponseCacheStore(options);
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  return {
    /** The entry's key: a SHA-256 (hex) of the principal, format, route and request, so a key's size does not grow with the request. */
    async keyOf(principal: GatewayPrincipal, dialect: string, route: string, request: ModelRequest): Promise<string> {
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(stableJson([principal.id, dialect, route, request])));
      return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
    },
    /** The cached answer, as a fresh Response (undefined on a miss or an expired entry). */
    async get(key: string): Promise<Response | undefined> {
      const entry = await store.get(key);
      return entry && new Response(entry.body, { status: 200, headers: { 'content-type': entry.contentType, 'x-parlance-cache': 'hit' } });
    },
    /** Keeps a successful answer (status 200, within the store's bounds); `body` is the answer's text. */
    async put(key: string, body: string, contentType: string): Promise<void> {
      await store.put(key, { body, contentType }, ttlMs);
    },
  };
}
