/**
 * Bytes to protocol events: UTF-8 decoding in streaming mode (a multibyte character
 * split across chunks is held until complete), SSE framing by eventsource-parser
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html) or NDJSON lines,
 * then the dialect's push decoder. Nothing throws out of it: a network failure or an
 * abort becomes an `error` event after everything received so far.
 */
import type { Event } from '@parlance/protocol';
import { createParser } from 'eventsource-parser';
import { createLineSplitter } from './shared/ndjson.ts';
import type { Decoder, Dialect, DecoderOptions, WireEvent } from './types.ts';

export interface DecodeStreamOptions extends DecoderOptions {
  signal?: AbortSignal | undefined;
}

/** Frames text into wire events for a dialect's framing. */
export interface Framer {
  push(text: string): WireEvent[];
  flush(): WireEvent[];
}

export function createFramer(framing: Dialect['framing']): Framer {
  if (framing === 'ndjson') {
    const lines = createLineSplitter();
    return {
      push: (text) => lines.push(text).map((data) => ({ data })),
      flush: () => lines.flush().map((data) => ({ data })),
    };
  }
  let pending: WireEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      pending.push({ event: message.event, data: message.data, id: message.id });
    },
  });
  return {
    push(text) {
      parser.feed(text);
      const out = pending;
      pending = [];
      return out;
    },
    flush() {
      // A final event without its blank line is still an event the provider sent.
      parser.feed('\n\n');
      const out = pending;
      pending = [];
      return out;
    },
  };
}

function abortMessage(signal: AbortSignal): string {
  const reason = signal.reason;
  if (reason instanceof Error && reason.message) return reason.message;
  return 'The request was aborted';
}

/** Decodes a response body with one dialect (the registry's `decodeStream` also takes an id). */
export async function* decodeDialectStream(
  spec: Dialect,
  body: ReadableStream<Uint8Array>,
  options: DecodeStreamOptions = {},
): AsyncGenerator<Event> {
  const decoder: Decoder = spec.createDecoder(options);
  const framer = createFramer(spec.framing);
  const text = new TextDecoder('utf-8');
  const reader = body.getReader();
  const { signal } = options;
  let finished = false;
  const emit = function* (events: Event[]) {
    for (const event of events) {
      if (event.type === 'finish') finished = true;
      yield event;
    }
  };
  const onAbort = () => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (!finished) {
      if (signal?.aborted) {
        yield* emit(decoder.fail({ code: 'aborted', message: abortMessage(signal), retryable: false }));
        return;
      }
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        if (signal?.aborted) {
          yield* emit(decoder.fail({ code: 'aborted', message: abortMessage(signal), retryable: false }));
        } else {
          const message = error instanceof Error ? error.message : String(error);
          yield* emit(decoder.fail({ code: 'network', message: `The connection failed mid-stream: ${message}` }));
        }
        return;
      }
      if (result.done) break;
      if (signal?.aborted) continue;
      for (const wire of framer.push(text.decode(result.value, { stream: true }))) {
        yield* emit(decoder.push(wire));
        if (finished) break;
      }
    }
    if (finished) return;
    if (signal?.aborted) {
      yield* emit(decoder.fail({ code: 'aborted', message: abortMessage(signal), retryable: false }));
      return;
    }
    const rest = text.decode();
    const wires = [...(rest ? framer.push(rest) : []), ...framer.flush()];
    for (const wire of wires) {
      yield* emit(decoder.push(wire));
      if (finished) return;
    }
    yield* emit(decoder.end());
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) reader.cancel().catch(() => {});
    reader.releaseLock?.();
  }
}

/** Decodes a complete body held in memory (tests, the CLI). */
export function decodeDialectText(spec: Dialect, text: string | Uint8Array, options: DecoderOptions = {}): Event[] {
  const decoder = spec.createDecoder(options);
  const framer = createFramer(spec.framing);
  const source = typeof text === 'string' ? text : new TextDecoder().decode(text);
  const out: Event[] = [];
  let finished = false;
  for (const wire of [...framer.push(source), ...framer.flush()]) {
    for (const event of decoder.push(wire)) {
      out.push(event);
      if (event.type === 'finish') finished = true;
    }
    if (finished) return out;
  }
  out.push(...decoder.end());
  return out;
}
