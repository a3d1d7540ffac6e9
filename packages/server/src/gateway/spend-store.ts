/**
 * Where the gateway's spend windows live: in this process (`memorySpendStore`, the default), or on
 * a store every instance shares (`redisSpendStore` from `@parlance/server/redis`), so a key's budget
 * is one budget however many gateway instances answer it.
 */

/**
 * One key's open window: the US dollars spent in it and when it ends (epoch ms).
 *
 * @example
 * ```ts
 * const window: SpendWindow = { usd: 0.8, resetAt: Date.now() + 3_600_000 };
 * ```
 */
export interface SpendWindow {
  usd: number;
  resetAt: number;
}

/**
 * A store of spend windows. `add` adds a finished call's cost to `key`'s open window, opening one of
 * `windowMs` when none is open (the first priced call starts a window); `get` reads the open window.
 * A store that cannot answer throws (the gateway turns it into `store_unavailable`).
 *
 * @example
 * ```ts
 * await store.add('team-a', 0.4, 3_600_000, Date.now());
 * const window = await store.get('team-a', Date.now()); // { usd: 0.4, resetAt }
 * ```
 */
export interface SpendStore {
  add(key: string, usd: number, windowMs: number, now: number): Promise<SpendWindow>;
  get(key: string, now: number): Promise<SpendWindow | undefined>;
}

/**
 * At most this many keys' windows are held in memory; the oldest window is dropped past it (that key starts afresh).
 *
 * @example
 * ```ts
 * console.log(`spend windows held in memory: at most ${MAX_TRACKED_PRINCIPALS}`);
 * ```
 */
export const MAX_TRACKED_PRINCIPALS = 10_000;

/**
 * Spend windows in this process's memory (one gateway instance), at most
 * {@link MAX_TRACKED_PRINCIPALS} keys.
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, spendStore: memorySpendStore() }); // the default
 * ```
 */
export function memorySpendStore(): SpendStore {
  const windows = new Map<string, SpendWindow>();
  const open = (key: string, now: number) => {
    const window = windows.get(key);
    if (window && now < window.resetAt) return window;
    if (window) windows.delete(key);
    return undefined;
  };
  return {
    async add(key, usd, windowMs, now) {
      let window = open(key, now);
      if (!window) {
        if (windows.size >= MAX_TRACKED_PRINCIPALS) windows.delete(windows.keys().next().value as string);
        window = { usd: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.usd += usd;
      return { ...window };
    },
    async get(key, now) {
      const window = open(key, now);
      return window && { ...window };
    },
  };
}
