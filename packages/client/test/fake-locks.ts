/**
 * An in-memory Web Locks manager (exclusive locks, `ifAvailable`, `signal`; shared locks, always
 * granted at once, which is all the revision marks use; `query` of the held ones), as the browser's
 * `navigator.locks` behaves for the tabs of one origin: here, for the stores of one test.
 */
export function fakeLocks(): LockManager {
  const waiting = new Map<string, (() => void)[]>();
  const held = new Set<string>();
  const shared = new Map<string, number>();
  const next = (name: string) => {
    const queue = waiting.get(name);
    const grant = queue?.shift();
    if (grant) grant();
    else held.delete(name);
  };
  const request = (name: string, a: LockOptions | LockGrantedCallback<unknown>, b?: LockGrantedCallback<unknown>): Promise<unknown> => {
    const [options, callback] = typeof a === 'function' ? [{} as LockOptions, a] : [a, b!];
    if (options.mode === 'shared') {
      shared.set(name, (shared.get(name) ?? 0) + 1);
      return (async () => {
        try {
          return await callback({ name, mode: 'shared' } as Lock);
        } finally {
          const n = shared.get(name)! - 1;
          if (n) shared.set(name, n);
          else shared.delete(name);
        }
      })();
    }
    const run = async () => {
      try {
        return await callback({ name, mode: 'exclusive' } as Lock);
      } finally {
        next(name);
      }
    };
    if (!held.has(name)) {
      held.add(name);
      return run();
    }
    if (options.ifAvailable) return Promise.resolve().then(() => callback(null));
    return new Promise((resolve, reject) => {
      const queue = waiting.get(name) ?? [];
      waiting.set(name, queue);
      const grant = () => {
        options.signal?.removeEventListener('abort', abort);
        run().then(resolve, reject);
      };
      const abort = () => {
        queue.splice(queue.indexOf(grant), 1);
        reject(new DOMException('The lock request was aborted', 'AbortError'));
      };
      options.signal?.addEventListener('abort', abort);
      queue.push(grant);
    });
  };
  const query = async () => ({
    held: [...[...held].map((name) => ({ name, mode: 'exclusive' })), ...[...shared.keys()].map((name) => ({ name, mode: 'shared' }))],
    pending: [],
  });
  return { request, query } as unknown as LockManager;
}
