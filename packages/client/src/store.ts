/**
 * The small subscribable every store builds on (TanStack Query's `subscribable.ts`
 * pattern), with one twist: streaming updates are published at most once per
 * animation frame. The working state changes on every event; listeners and
 * `getSnapshot` see the published snapshot, so a 1,000-delta stream costs one
 * render per frame, not one per delta. Anything that is not a delta publishes now.
 *
 * @example
 * const stop = store.subscribe((() => render()) satisfies Listener);
 */
export type Listener = () => void;
/**
 * Runs `flush` soon (default: the next animation frame, or a 16 ms timer outside a browser).
 *
 * @example
 * store.schedule = (flush) => queueMicrotask(flush); // tests: publish without waiting for a frame
 */
export type Schedule = (flush: () => void) => void;

export const nextFrame: Schedule = (flush) => {
  // Read at call time so tests and hosts can swap requestAnimationFrame.
  const raf = globalThis.requestAnimationFrame;
  if (raf) raf(flush);
  else setTimeout(flush, 16);
};

/**
 * A tiny observable store (`subscribe`, `getSnapshot`) for `useSyncExternalStore`, publishing at most once per frame while streaming.
 *
 * @example
 * class Counter extends Store<number> { increment = () => this.set(this.getSnapshot() + 1); }
 * const counter = new Counter(0);
 * counter.subscribe(() => console.log(counter.getSnapshot()));
 */
export class Store<S> {
  protected state: S;
  #snapshot: S;
  #listeners = new Set<Listener>();
  #scheduled = false;
  /** Where batched flushes are scheduled; replaceable per store. */
  schedule: Schedule = nextFrame;

  constructor(initial: S) {
    this.state = this.#snapshot = initial;
  }

  subscribe = (listener: Listener): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = (): S => this.#snapshot;

  /** Sets the working state; `batch` defers publication to the next frame. */
  protected set(state: S, batch = false): void {
    this.state = state;
    if (!batch) {
      this.flush();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.schedule(() => this.flush());
  }

  protected flush(): void {
    this.#scheduled = false;
    const prev = this.#snapshot;
    if (prev === this.state) return;
    this.#snapshot = this.state;
    this.published(prev, this.state);
    for (const listener of this.#listeners) listener();
  }

  /** Called after each publication, before the listeners. */
  protected published(_prev: S, _next: S): void {}
}
