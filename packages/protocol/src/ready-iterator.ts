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
