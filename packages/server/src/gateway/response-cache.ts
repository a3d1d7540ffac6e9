/**
 * An opt-in exact-match response cache: a non-streamed answer kept under its key (the principal, the
 * caller's format, the route name and the decoded request), so the same request from the same key is
 * answered again without an upstream call. Never shared across keys. Bounded by entries and bytes,
 * least recently used first out.
 */
import type { ModelRequest } from '@parlance/protocol';
import type { GatewayPrincipal } from './keys.ts';

/**
 * The cache's bounds (defaults: 1,000 entries, 32 MiB in all, keys (which hold the request) and
 * answers counted as held in memory; an entry over 1 MiB is not kept; entries live 10 minutes).
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, cache: { maxEntries: 500, ttlMs: 60_000 } });
 * ```
 */
export interface ResponseCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
  maxEntryBytes?: number;
  ttlMs?: number;
}

interface Entry {
  body: string;
  /** Key and body, as UTF-16 code units held in memory. */
  size: number;
  contentType: string;
  expires: number;
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
 * The cache (in this process's memory).
 *
 * @example
 * ```ts
 * const cache = createResponseCache({ maxEntries: 100 });
 * const key = cache.keyOf(principal, 'openai_completions', 'fast', request);
 * const hit = cache.get(key) ?? (await cache.put(key, await answer()));
 * ```
 */
export function createResponseCache(options: ResponseCacheOptions = {}, now: () => number = Date.now) {
  const maxEntries = options.maxEntries ?? 1000;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const maxEntryBytes = Math.min(options.maxEntryBytes ?? 1024 * 1024, maxBytes);
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.size;
    entries.delete(key);
  };
  return {
    keyOf(principal: GatewayPrincipal, dialect: string, route: string, request: ModelRequest): string {
      return stableJson([principal.id, dialect, route, request]);
    },
    /** The cached answer, as a fresh Response (undefined on a miss or an expired entry). */
    get(key: string): Response | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires <= now()) {
        drop(key);
        return undefined;
      }
      // Most recently used last: the Map's order is the eviction order.
      entries.delete(key);
      entries.set(key, entry);
      return new Response(entry.body, { status: 200, headers: { 'content-type': entry.contentType, 'x-parlance-cache': 'hit' } });
    },
    /** Keeps a successful answer (status 200, within the bounds) and gives it back to send. */
    async put(key: string, response: Response): Promise<Response> {
      if (response.status !== 200) return response;
      const body = await response.text();
      const contentType = response.headers.get('content-type') ?? 'application/json';
      const size = (key.length + body.length) * 2; // the key holds the request: it counts too
      if (size <= maxEntryBytes) {
        drop(key);
        entries.set(key, { body, size, contentType, expires: now() + ttlMs });
        bytes += size;
        for (const oldest of entries.keys()) {
          if (entries.size <= maxEntries && bytes <= maxBytes) break;
          drop(oldest);
        }
      }
      return new Response(body, { status: 200, headers: response.headers });
    },
    /** Entries and bytes held (for tests and metrics). */
    size: () => ({ entries: entries.size, bytes }),
  };
}
