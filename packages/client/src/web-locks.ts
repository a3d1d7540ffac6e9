/**
 * Web Locks (`navigator.locks`), read at call time: one lock name held by one tab of the origin at
 * a time, released by the browser when that tab goes away. Where there are none (old browsers,
 * Node), `withLock` runs at once: one tab is safe, and across tabs the revision check still turns
 * a lost race into a `conflict` that is merged.
 */

/** The page's lock manager, or undefined. */
export const lockManager = (): LockManager | undefined => (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;

/** Runs `fn` holding the lock `name` (exclusive), or at once where there are no Web Locks. */
export function withLock<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
  const locks = lockManager();
  return locks ? (locks.request(name, () => fn()) as Promise<T>) : Promise.resolve().then(fn);
}
