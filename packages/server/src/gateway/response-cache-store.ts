/**
 * Where the response cache keeps answers: in this process (`memoryResponseCacheStore`, the default),
 * or on a store every instance shares (`redisResponseCacheStore` from `@parlance/server/redis`).
 */

/**
 * A kept answer: its body and content type.
 *
 * @example
 * ```ts
 * const answer: CachedAnswer = { body: '{"id":"chatcmpl-1"}', contentType: 'application/json' };
 * ```
 */
export interface CachedAnswer {
  body: string;
  contentType: string;
}

/**
 * A store of cached answers under opaque keys (a SHA-256 of the request's identity). `get` answers
 * undefined on a miss or an expired entry; `put` keeps an entry for `ttlMs` within the store's bounds.
 * A store that cannot answer throws; the gateway then treats it as a miss (the call goes upstream).
 *
 * @example
 * ```ts
 * await store.put(key, { body, contentType: 'application/json' }, 60_000);
 * const hit = await store.get(key);
 * ```
 */
export interface ResponseCacheStore {
  get(key: string): Promise<CachedAnswer | undefined>;
  put(key: string, answer: CachedAnswer, ttlMs: number): Promise<void>;
}

/**
 * Bounds of a cache store (defaults: 1,000 entries, 32 MiB of keys and bodies counted as UTF-16 code
 * units, an entry over 1 MiB is not kept).
 *
 * @example
 * ```ts
 * const bounds: ResponseCacheBounds = { maxEntries: 500, maxBytes: 8 * 1024 * 1024 };
 * ```
 */
export interface ResponseCacheBounds {
  maxEntries?: number;
  maxBytes?: number;
  maxEntryBytes?: number;
}

/** The bounds with their defaults filled in. */
export function cacheBounds(bounds: ResponseCacheBounds = {}): Required<ResponseCacheBounds> {
  const maxBytes = bounds.maxBytes ?? 32 * 1024 * 1024;
  return { maxEntries: bounds.maxEntries ?? 1000, maxBytes, maxEntryBytes: Math.min(bounds.maxEntryBytes ?? 1024 * 1024, maxBytes) };
}

/** An entry's size as held: key and body (and content type) as UTF-16 code units. */
export function entrySize(key: string, answer: CachedAnswer): number {
  return (key.length + answer.body.length + answer.contentType.length) * 2;
}

/**
 * Cached answers in this process's memory, least recently used out first.
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, cache: { store: memoryResponseCacheStore({ maxEntries: 100 }) } });
 * ```
 */
export function memoryResponseCacheStore(bounds: ResponseCacheBounds = {}, now: () => number = Date.now): ResponseCacheStore & { size(): { entries: number; bytes: number } } {
  const { maxEntries, maxBytes, maxEntryBytes } = cacheBounds(bounds);
  const entries = new Map<string, CachedAnswer & { size: number; expires: number }>();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.size;
    entries.delete(key);
  };
  return {
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires <= now()) {
        drop(key);
        return undefined;
      }
      // Most recently used last: the Map's order is the eviction order.
      entries.delete(key);
      entries.set(key, entry);
      return { body: entry.body, contentType: entry.contentType };
    },
    async put(key, answer, ttlMs) {
      const size = entrySize(key, answer);
      if (size > maxEntryBytes) return;
      drop(key);
      entries.set(key, { ...answer, size, expires: now() + ttlMs });
      bytes += size;
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        drop(oldest);
      }
    },
    size: () => ({ entries: entries.size, bytes }),
  };
}
