/**
 * The Durable Object behind `durableObjectRateLimitStore`: one object per rate-limit key, so
 * every Worker, in any location, counts that key's hits in one place. The object keeps its one
 * open window in its storage (a hit reads and writes it inside the object's input gate, so two
 * hits never interleave) and sets an alarm at the window's end that deletes it: storage holds
 * open windows only, as Redis holds only unexpired keys.
 * https://developers.cloudflare.com/durable-objects/api/alarms/
 *
 * It speaks JSON over `fetch` ({ windowMs, now } in, { count, resetAt } out), so it needs no
 * `cloudflare:workers` import, like `ParlanceRunStoreObject`.
 */
import { ParlanceError } from '@parlance/protocol';

/** A window: hits so far, and when it ends (epoch ms). */
interface Window {
  count: number;
  resetAt: number;
}

/**
 * The parts of a Durable Object's state the object uses (`ctx` of its constructor).
 *
 * @example
 * const state: RateLimitObjectState = ctx; // the DurableObjectState workerd passes to the constructor
 */
export interface RateLimitObjectState {
  storage: {
    get<T>(key: string): Promise<T | undefined>;
    put<T>(key: string, value: T): Promise<void>;
    delete(key: string): Promise<boolean>;
    setAlarm(scheduledTime: number): Promise<void>;
  };
}

const WINDOW = 'window';

function refuse(message: string): Response {
  return Response.json({ error: new ParlanceError('invalid_request', message).toJSON() }, { status: 400 });
}

/**
 * The Durable Object class that counts for `durableObjectRateLimitStore`. Export it from your
 * Worker and bind it in `wrangler.jsonc`.
 *
 * @example
 * ```ts
 * // worker.ts
 * export { ParlanceRateLimitObject } from '@parlance/server/durable-objects';
 * // wrangler.jsonc
 * // "durable_objects": { "bindings": [{ "name": "PARLANCE_RATE_LIMITS", "class_name": "ParlanceRateLimitObject" }] },
 * // "migrations": [{ "tag": "v1", "new_sqlite_classes": ["ParlanceRateLimitObject"] }]
 * ```
 */
export class ParlanceRateLimitObject {
  constructor(private readonly state: RateLimitObjectState) {}

  /** One hit: `{ windowMs, now }` (the caller's clock, as every store takes it) -> `{ count, resetAt }`. */
  async fetch(request: Request): Promise<Response> {
    let body: { windowMs?: unknown; now?: unknown };
    try {
      body = (await request.json()) as typeof body;
    } catch {
      return refuse('Not a rate limit hit');
    }
    const { windowMs, now } = body ?? {};
    if (typeof windowMs !== 'number' || !(windowMs > 0) || !Number.isFinite(windowMs)) return refuse('`windowMs` must be a positive number');
    if (typeof now !== 'number' || !Number.isFinite(now)) return refuse('`now` must be a time in epoch milliseconds');
    const storage = this.state.storage;
    let window = await storage.get<Window>(WINDOW);
    if (!window || now >= window.resetAt) {
      window = { count: 0, resetAt: now + windowMs };
      // One alarm per object: this replaces the ended window's, if it has not run yet.
      await storage.setAlarm(window.resetAt);
    }
    window.count++;
    await storage.put(WINDOW, window);
    return Response.json(window);
  }

  /** The window's end: forget it (a hit since then started a new one, which stays). */
  async alarm(): Promise<void> {
    const window = await this.state.storage.get<Window>(WINDOW);
    if (window && Date.now() >= window.resetAt) await this.state.storage.delete(WINDOW);
  }
}
