/**
 * Values an async iterator already holds, handed out without a promise.
 *
 * A streamed reply crosses several async iterators between the provider's socket and the browser's
 * (the decoder, the model, the run loop's queue, the server's scrubber, the run store's reader). One
 * socket read decodes to dozens of deltas, and an `await` per delta per stage was most of a server's
 * CPU per delta beyond the parse and write every server does. An iterator that holds values already
 * (a decoded batch, a queue) offers `takeReady()`; a reader awaits `next()` once, then takes what
 * else is ready synchronously, and a wrapping iterator passes `takeReady()` through. Nothing changes
 * for a reader that only calls `next()`.
 */

/**
 * An async iterator that can also hand out, synchronously, a value it already holds.
 *
 * @example
 * const it: ReadyIterator<Event> = decodeDialectStream(dialect, body);
 * for (let r = await it.next(); !r.done; r = await it.next()) {
 *   handle(r.value);
 *   for (let v = it.takeReady(); v !== undefined; v = it.takeReady()) handle(v);
 * }
 */
export interface ReadyIterator<T> extends AsyncIterableIterator<T> {
  /**
   * The value `next()` would resolve to at once, taken as `next()` would take it, or `undefined`
   * when none is held (nothing yet, or the end: then call `next()`). Never ends the iterator.
   */
  takeReady(): T | undefined;
}

/**
 * The next value `iterator` already holds (its `takeReady()`), or `undefined`: when it holds none, or
 * when it is not a {@link ReadyIterator}. Values are never `undefined` themselves (events, frames).
 *
 * @example
 * const first = await events.next();
 * if (!first.done) for (let e: Event | undefined = first.value; e !== undefined; e = takeReady(events)) handle(e);
 */
export function takeReady<T>(iterator: AsyncIterator<T>): T | undefined {
  return (iterator as Partial<ReadyIterator<T>>).takeReady?.();
}

/**
 * Values held for a reader, taken oldest first: `items` is pushed onto by whoever produces them (an
 * array, so an API that fills an `Event[]` can fill it), `take()` reads with a moving index rather
 * than `shift()` (O(1); the array is emptied once every value was taken). What a {@link ReadyIterator}
 * holds between `next()` calls.
 *
 * @example
 * const held = heldQueue<Event>();
 * held.items.push(start, ...warnings);
 * for (let event = held.take(); event !== undefined; event = held.take()) send(event);
 */
export interface HeldQueue<T> {
  /** The values not taken yet follow those taken already; push new ones here. */
  readonly items: T[];
  /** The oldest value not taken yet, or `undefined` when none is held. */
  take(): T | undefined;
  /** Drops every value held. */
  clear(): void;
}

/**
 * An empty {@link HeldQueue}.
 *
 * @example
 * const held = heldQueue<Event>();
 * held.items.push(event);
 * held.take(); // event
 */
export function heldQueue<T>(): HeldQueue<T> {
  const items: T[] = [];
  let head = 0;
  return {
    items,
    take() {
      if (head >= items.length) return undefined;
      const value = items[head++]!;
      if (head === items.length) {
        items.length = 0;
        head = 0;
      }
      return value;
    },
    clear() {
      items.length = 0;
      head = 0;
    },
  };
}
