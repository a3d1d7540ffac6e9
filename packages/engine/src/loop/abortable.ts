/** Waiting on a promise that an abort cuts short: the loop's model reads and tool calls. */

/** What a wait the run's signal cut short answers. */
export const ABORTED = Symbol('aborted');

/**
 * Waits that end early on abort, with one abort listener for all of them (a model stream's
 * `next()` per event), not one listener and one race per wait. `dispose` removes the listener.
 */
export function abortableWaits(signal: AbortSignal): { wait<T>(promise: Promise<T>): Promise<T | typeof ABORTED>; dispose(): void } {
  let wake: ((value: typeof ABORTED) => void) | undefined;
  const onAbort = () => wake?.(ABORTED);
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    wait<T>(promise: Promise<T>) {
      if (signal.aborted) {
        promise.catch(() => {});
        return Promise.resolve(ABORTED);
      }
      return new Promise<T | typeof ABORTED>((resolve, reject) => {
        wake = resolve;
        promise.then(resolve, (error) => (signal.aborted ? resolve(ABORTED) : reject(error)));
      });
    },
    dispose: () => signal.removeEventListener('abort', onAbort),
  };
}

/** `promise`, or `ABORTED` as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve(ABORTED);
        else reject(error);
      },
    );
  });
}
