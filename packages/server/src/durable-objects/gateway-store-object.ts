/**
 * The Durable Object behind `durableObjectSpendStore` and `durableObjectResponseCacheStore`:
 * - a spend object per principal holds that key's one open window (read and written inside the
 *   object's input gate, so two adds never interleave) and an alarm at the window's end deletes
 *   it: storage holds open windows only;
 * - a cache object holds the whole response cache of a gateway (one per cache `name`), within the
 *   bounds each write carries: entries expire with their ttl and the oldest go first past the
 *   bounds. Its index (size, expiry, order per entry) sits in memory, rebuilt from storage when
 *   the object wakes.
 * https://developers.cloudflare.com/durable-objects/api/storage-api/
 *
 * It speaks JSON over `fetch`, so it needs no `cloudflare:workers` import, like `ParlanceRateLimitObject`.
 */
import { ParlanceError } from '@parlance/protocol';
import type { RateLimitObjectState } from './rate-limit-object.ts';

/**
 * The parts of a Durable Object's state this object uses (`ctx` of its constructor).
 *
 * @example
 * const state: GatewayStoreObjectState = ctx; // the DurableObjectState workerd passes to the constructor
 */
export interface GatewayStoreObjectState {
  storage: RateLimitObjectState['storage'] & {
    delete(keys: string | string[]): Promise<boolean | number>;
    list<T>(options: { prefix: string }): Promise<Map<string, T>>;
  };
}

interface Window {
  usd: number;
  resetAt: number;
}
interface Meta {
  size: number;
  expires: number;
  seq: number;
}
interface Bounds {
  maxEntries: number;
  maxBytes: number;
  maxEntryBytes: number;
}

const WINDOW = 'window';
const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function refuse(message: string): Response {
  return Response.json({ error: new ParlanceError('invalid_request', message).toJSON() }, { status: 400 });
}

/**
 * The Durable Object class for the gateway's shared spend windows and response cache. Export it from
 * your Worker and bind it in `wrangler.jsonc`.
 *
 * @example
 * ```ts
 * // worker.ts
 * export { ParlanceGatewayStoreObject } from '@parlance/server/durable-objects';
 * // wrangler.jsonc
 * // "durable_objects": { "bindings": [{ "name": "PARLANCE_GATEWAY", "class_name": "ParlanceGatewayStoreObject" }] },
 * // "migrations": [{ "tag": "v3", "new_sqlite_classes": ["ParlanceGatewayStoreObject"] }]
 * ```
 */
export class ParlanceGatewayStoreObject {
  private index: Map<string, Meta> | undefined;
  private bytes = 0;
  private seq = 0;

  constructor(private readonly state: GatewayStoreObjectState) {}

  /** `POST /spend/add`, `/spend/get`, `/cache/get`, `/cache/put` with a JSON body. */
  async fetch(request: Request): Promise<Response> {
    let body: Record<string, unknown>;
    try {
      body = (await request.json()) as Record<string, unknown>;
    } catch {
      return refuse('Not a gateway store call');
    }
    if (typeof body !== 'object' || body === null) return refuse('Not a gateway store call');
    const path = new URL(request.url).pathname;
    if (path === '/spend/add') return this.spendAdd(body);
    if (path === '/spend/get') return this.spendGet(body);
    if (path === '/cache/get') return this.cacheGet(body);
    if (path === '/cache/put') return this.cachePut(body);
    return refuse(`Unknown gateway store call ${path}`);
  }

  private async spendAdd({ usd, windowMs, now }: Record<string, unknown>): Promise<Response> {
    if (!finite(usd) || !finite(windowMs) || !(windowMs > 0) || !finite(now)) return refuse('`usd`, `windowMs` and `now` must be numbers');
    const storage = this.state.storage;
    let window = await storage.get<Window>(WINDOW);
    if (!window || now >= window.resetAt) {
      window = { usd: 0, resetAt: now + windowMs };
      await storage.setAlarm(window.resetAt);
    }
    window.usd += usd;
    await storage.put(WINDOW, window);
    return Response.json(window);
  }

  private async spendGet({ now }: Record<string, unknown>): Promise<Response> {
    if (!finite(now)) return refuse('`now` must be a time in epoch milliseconds');
    const window = await this.state.storage.get<Window>(WINDOW);
    return Response.json(window && now < window.resetAt ? window : {});
  }

  /** The spend window's end: forget it (an add since then opened a new one, which stays). */
  async alarm(): Promise<void> {
    const window = await this.state.storage.get<Window>(WINDOW);
    if (window && Date.now() >= window.resetAt) await this.state.storage.delete(WINDOW);
  }

  private async loadIndex(): Promise<Map<string, Meta>> {
    if (this.index) return this.index;
    const metas = await this.state.storage.list<Meta>({ prefix: 'm:' });
    // Oldest first: the Map's order is the eviction order.
    const sorted = [...metas].map(([key, meta]) => [key.slice(2), meta] as const).sort((a, b) => a[1].seq - b[1].seq);
    this.index = new Map(sorted);
    this.bytes = sorted.reduce((sum, [, meta]) => sum + meta.size, 0);
    this.seq = sorted.at(-1)?.[1].seq ?? 0;
    return this.index;
  }

  private async forget(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    for (const key of keys) {
      this.bytes -= this.index!.get(key)?.size ?? 0;
      this.index!.delete(key);
    }
    // The storage API deletes at most 128 keys a call.
    const stored = keys.flatMap((key) => [`m:${key}`, `e:${key}`]);
    for (let i = 0; i < stored.length; i += 128) await this.state.storage.delete(stored.slice(i, i + 128));
  }

  private async cacheGet({ key, now }: Record<string, unknown>): Promise<Response> {
    if (typeof key !== 'string' || !finite(now)) return refuse('`key` and `now` are needed');
    const meta = (await this.loadIndex()).get(key);
    if (!meta) return Response.json({});
    if (meta.expires <= now) {
      await this.forget([key]);
      return Response.json({});
    }
    return Response.json((await this.state.storage.get(`e:${key}`)) ?? {});
  }

  private async cachePut({ key, body, contentType, ttlMs, now, bounds }: Record<string, unknown>): Promise<Response> {
    const b = bounds as Bounds | undefined;
    if (typeof key !== 'string' || typeof body !== 'string' || typeof contentType !== 'string' || !finite(ttlMs) || !finite(now) || !b || !finite(b.maxEntries) || !finite(b.maxBytes) || !finite(b.maxEntryBytes)) {
      return refuse('`key`, `body`, `contentType`, `ttlMs`, `now` and `bounds` are needed');
    }
    const size = (key.length + body.length + contentType.length) * 2;
    if (size > b.maxEntryBytes) return Response.json({ kept: false });
    const index = await this.loadIndex();
    await this.forget([key, ...[...index].filter(([, meta]) => meta.expires <= now).map(([k]) => k)]);
    const meta: Meta = { size, expires: now + ttlMs, seq: ++this.seq };
    index.set(key, meta);
    this.bytes += size;
    const evicted: string[] = [];
    let [count, bytes] = [index.size, this.bytes];
    for (const [oldest, old] of index) {
      if (count <= b.maxEntries && bytes <= b.maxBytes) break;
      evicted.push(oldest);
      count--;
      bytes -= old.size;
    }
    await this.state.storage.put(`e:${key}`, { body, contentType });
    await this.state.storage.put(`m:${key}`, meta);
    await this.forget(evicted);
    return Response.json({ kept: !evicted.includes(key), entries: index.size, bytes: this.bytes });
  }
}
