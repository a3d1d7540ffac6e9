/**
 * The bridge between the run (which pushes events from parallel work) and its
 * reader (which pulls with `for await`). A reader that stops early (`break`)
 * cancels the run through `onReturn`.
 *
 * The queue is bounded by bytes, not by refusing pushes: `push` never drops an event (a tool
 * result or a `chat-finish` must arrive), but `ready()` stays pending while more than
 * `maxBytes` wait, and the loop awaits it before it reads the model's stream again. So a model
 * is read no faster than the reader takes events (a server writing each one to Redis), and an
 * endless upstream holds at most `maxBytes` (plus the one event being pushed) here.
 */
export interface EventQueue<T> extends AsyncIterable<T> {
  push(value: T): void;
  end(): void;
  /** Resolves once the queue holds at most `maxBytes` (at once when it does, or when it ended). */
  ready(): Promise<void>;
  /** Whether `ready()` would wait (more than `maxBytes` queued): a reader that need not wait skips the promise. */
  full(): boolean;
  /**
   * Resolves once every event pushed so far was taken and the reader asks for the next one (or the
   * queue ended). A reader that pulls the next event only after it stored the last one (a server
   * writing to its run store) has then stored them all: a tool call starts after this, so a run
   * continued elsewhere always knows the calls that may have begun.
   */
  taken(): Promise<void>;
}

/**
 * What the queue holds at most before `ready()` waits (256 KiB of event text), unless
 * `maxQueuedBytes` says otherwise.
 */
export const DEFAULT_MAX_QUEUED_BYTES = 256 * 1024;

export interface EventQueueOptions<T> {
  /** Bytes the queue holds before `ready()` waits (default `DEFAULT_MAX_QUEUED_BYTES`). */
  maxBytes?: number;
  /** An event's size in bytes, estimated (default: 64). */
  sizeOf?: (value: T) => number;
}

export function createEventQueue<T>(onReturn: () => void, options: EventQueueOptions<T> = {}): EventQueue<T> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  const sizeOf = options.sizeOf ?? (() => 64);
  const buffer: T[] = [];
  const sizes: number[] = [];
  let bytes = 0;
  let head = 0;
  let ended = false;
  let wake: (() => void) | undefined;
  let drained: (() => void) | undefined;
  let draining: Promise<void> | undefined;
  /** The reader waits for an event (it took every one pushed). */
  let waiting = false;
  const takenWaiters: (() => void)[] = [];
  const allTaken = () => {
    for (const resolve of takenWaiters.splice(0)) resolve();
  };
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const release = () => {
    if (!drained || (bytes > maxBytes && !ended)) return;
    const d = drained;
    drained = undefined;
    draining = undefined;
    d();
  };
  return {
    push(value) {
      if (ended) return;
      const size = sizeOf(value);
      buffer.push(value);
      sizes.push(size);
      bytes += size;
      notify();
    },
    end() {
      ended = true;
      notify();
      release();
      allTaken();
    },
    taken() {
      if (ended || (waiting && head === buffer.length)) return Promise.resolve();
      return new Promise<void>((resolve) => takenWaiters.push(resolve));
    },
    full: () => !ended && bytes > maxBytes,
    ready() {
      if (ended || bytes <= maxBytes) return Promise.resolve();
      draining ??= new Promise<void>((resolve) => (drained = resolve));
      return draining;
    },
    [Symbol.asyncIterator]() {
      const take = (): T => {
        const value = buffer[head]!;
        bytes -= sizes[head]!;
        head++;
        // Compact now and then instead of shift() per event (shift is O(n) on a long buffer).
        if (head === buffer.length || head >= 1024) {
          buffer.splice(0, head);
          sizes.splice(0, head);
          head = 0;
        }
        release();
        return value;
      };
      return {
        // What is queued already, without a promise per event (the protocol's ready-iterator.ts).
        takeReady: (): T | undefined => (head < buffer.length ? take() : undefined),
        async next(): Promise<IteratorResult<T>> {
          while (head === buffer.length && !ended) {
            waiting = true;
            if (takenWaiters.length > 0) allTaken();
            await new Promise<void>((resolve) => (wake = resolve));
            waiting = false;
          }
          if (head < buffer.length) return { value: take(), done: false };
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<T>> {
          if (!ended) onReturn();
          ended = true;
          buffer.length = 0;
          sizes.length = 0;
          head = 0;
          bytes = 0;
          release();
          allTaken();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
