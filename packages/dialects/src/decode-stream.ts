/**
 * Bytes to protocol events: UTF-8 decoding in streaming mode (a multibyte character
 * split across chunks is held until complete), SSE framing by shared/sse-framer.ts
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html) or NDJSON lines,
 * then the dialect's push decoder. Nothing throws out of it: a network failure or an
 * abort becomes an `error` event after everything received so far.
 */
import type { Event, ReadyIterator } from '@parlance/protocol';
import { createLineSplitter } from './shared/ndjson.ts';
import { createSseFramer } from './shared/sse-framer.ts';
import type { ByteFramer, ClientDialect, Decoder, DecoderOptions, WireEvent } from './types.ts';

/**
 * 
 *
 * @example
 * decodeStream('anthropic_messages', body, { signal: AbortSignal.timeout(120_000) });
 */
export interface DecodeStreamOptions extends DecoderOptions {
  signal?: AbortSignal | undefined;
  /**
   * Sees each chunk of the body as it is read, before it is decoded (a gateway forwards a same-format
   * stream's bytes unchanged while it decodes them to count usage). Called in the reader's own read:
   * no second stream over the body.
   */
  onChunk?: ((chunk: Uint8Array) => void) | undefined;
}

/**
 * Frames text into wire events for a dialect's framing.
 *
 * @example
 * const framer: Framer = createFramer('sse');
 */
export interface Framer {
  push(text: string): WireEvent[];
  flush(): WireEvent[];
}

/**
 * 
 *
 * @example
 * const framer = createFramer('ndjson');
 * for (const wire of framer.push(chunkText)) handle(wire);
 * for (const wire of framer.flush()) handle(wire);
 */
export function createFramer(framing: ClientDialect['framing']): Framer {
  if (framing === 'ndjson') {
    const lines = createLineSplitter();
    return {
      push: (text) => lines.push(text).map((data) => ({ data })),
      flush: () => lines.flush().map((data) => ({ data })),
    };
  }
  // Not eventsource-parser here: the decoders' hot path frames with indexOf + slice (see sse-framer.ts).
  return createSseFramer();
}

function abortMessage(signal: AbortSignal): string {
  const reason = signal.reason;
  if (reason instanceof Error && reason.message) return reason.message;
  return 'The request was aborted';
}

/**
 * Decodes a response body with one dialect (the registry's `decodeStream` also takes an id, and so
 * bundles every dialect; this bundles only the one given).
 *
 * A hand-written async iterator rather than an async generator: each `read()` of
 * the body yields a batch of events that are then handed out of a plain array, so
 * the per-event cost is one resolved promise, not a generator resumption per
 * `yield` (which cost about half the decode time on long streams), or none through `takeReady()`.
 *
 * @example
 * for await (const event of decodeDialectStream(anthropicMessagesClient, response.body!)) console.log(event.type);
 */
export function decodeDialectStream(
  spec: ClientDialect,
  body: ReadableStream<Uint8Array>,
  options: DecodeStreamOptions = {},
): ReadyIterator<Event> {
  const decoder: Decoder = spec.createDecoder(options);
  const framer = spec.createByteFramer ? undefined : createFramer(spec.framing);
  const bytes: ByteFramer | undefined = spec.createByteFramer?.();
  const text = new TextDecoder('utf-8');
  const reader = body.getReader();
  const { signal } = options;
  let queue: Event[] = [];
  let index = 0;
  /** A `finish` was queued: nothing more is read or emitted. */
  let finished = false;
  let released = false;

  const onAbort = () => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  function release(cancel: boolean) {
    if (released) return;
    released = true;
    signal?.removeEventListener('abort', onAbort);
    if (cancel) reader.cancel().catch(() => {});
  }

  function enqueue(events: Event[]) {
    for (const event of events) {
      if (finished) return;
      queue.push(event);
      if (event.type === 'finish') finished = true;
    }
  }

  function feed(wires: WireEvent[]) {
    for (const wire of wires) {
      if (finished) return;
      enqueue(decoder.push(wire));
    }
  }

  function aborted() {
    enqueue(decoder.fail({ code: 'aborted', message: abortMessage(signal!), retryable: false }));
  }

  /** Reads until at least one event is queued or the stream is over. */
  async function fill(): Promise<void> {
    while (index >= queue.length && !finished) {
      queue = [];
      index = 0;
      if (signal?.aborted) {
        aborted();
        break;
      }
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        if (signal?.aborted) aborted();
        else {
          const message = error instanceof Error ? error.message : String(error);
          enqueue(decoder.fail({ code: 'network', message: `The connection failed mid-stream: ${message}` }));
        }
        break;
      }
      if (signal?.aborted) {
        aborted();
        break;
      }
      if (!result.done) options.onChunk?.(result.value);
      if (bytes) {
        // Binary framing: a framing error (a checksum mismatch, a body cut inside a frame) fails the stream.
        try {
          if (result.done) feed(bytes.flush());
          else feed(bytes.push(result.value));
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          enqueue(decoder.fail({ code: 'invalid_response', message, retryable: false }));
          break;
        }
        if (result.done) {
          if (!finished) enqueue(decoder.end());
          finished = true;
          break;
        }
        continue;
      }
      if (result.done) {
        const rest = text.decode();
        feed(rest ? framer!.push(rest) : []);
        feed(framer!.flush());
        if (!finished) enqueue(decoder.end());
        finished = true;
        break;
      }
      feed(framer!.push(text.decode(result.value, { stream: true })));
    }
  }

  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const iterator: ReadyIterator<Event> = {
    // The rest of a decoded batch, without a promise per event (the protocol's ready-iterator.ts).
    takeReady: () => (index < queue.length ? queue[index++] : undefined),
    next() {
      // Not an async function: a queued event costs one already-resolved promise, nothing more.
      if (index < queue.length) return Promise.resolve({ done: false, value: queue[index++]! });
      if (finished) {
        release(true);
        return Promise.resolve(done);
      }
      return fill().then(() => {
        if (index < queue.length) return { done: false, value: queue[index++]! };
        release(true);
        return done;
      });
    },
    async return() {
      // The consumer stopped early: stop reading the body.
      finished = true;
      queue = [];
      release(true);
      return done;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** Decodes a complete body held in memory (tests, the CLI). */
export function decodeDialectText(spec: ClientDialect, text: string | Uint8Array, options: DecoderOptions = {}): Event[] {
  const decoder = spec.createDecoder(options);
  const out: Event[] = [];
  let finished = false;
  let wires: WireEvent[] = [];
  let broken: string | undefined;
  if (spec.createByteFramer) {
    const bytes = spec.createByteFramer();
    try {
      wires = bytes.push(typeof text === 'string' ? new TextEncoder().encode(text) : text);
      wires.push(...bytes.flush());
    } catch (error) {
      broken = error instanceof Error ? error.message : String(error);
    }
  } else {
    const framer = createFramer(spec.framing);
    const source = typeof text === 'string' ? text : new TextDecoder().decode(text);
    wires = [...framer.push(source), ...framer.flush()];
  }
  for (const wire of wires) {
    for (const event of decoder.push(wire)) {
      out.push(event);
      if (event.type === 'finish') finished = true;
    }
    if (finished) return out;
  }
  out.push(...(broken === undefined ? decoder.end() : decoder.fail({ code: 'invalid_response', message: broken, retryable: false })));
  return out;
}
