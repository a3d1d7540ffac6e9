/**
 * An opened response body -> protocol events, through the dialect's decoder. The
 * decoder only sees that a read failed; the transport knows why (idle timeout,
 * connection reset, abort), so its error replaces the decoder's generic one.
 */
import type { ClientDialect, DecoderOptions } from '@parlance/dialects';
// decodeDialectStream, not decodeStream: the latter also takes an id, so it bundles every dialect.
import { decodeDialectStream } from '@parlance/dialects';
import { errorEvent, type Event, type ReadyIterator } from '@parlance/protocol';
import type { OpenedStream } from './transport.ts';

export interface DecodeResponseOptions {
  signal?: AbortSignal | undefined;
  decoderOptions?: DecoderOptions | undefined;
  /** Sees each chunk of the body as it is read, before it is decoded (`ModelCallOptions.onBytes`). */
  onChunk?: ((chunk: Uint8Array) => void) | undefined;
}

export function decodeResponse(
  dialect: ClientDialect,
  opened: OpenedStream,
  options: DecodeResponseOptions = {},
): ReadyIterator<Event> {
  const decodeOptions = { ...options.decoderOptions, ...(options.signal ? { signal: options.signal } : {}), ...(options.onChunk ? { onChunk: options.onChunk } : {}) };
  const events = decodeDialectStream(dialect, opened.body, decodeOptions);
  // A mapping iterator, not an async generator: a generator costs a resumption and promises per event.
  const replace = (result: IteratorResult<Event>): IteratorResult<Event> => {
    if (result.done || result.value.type !== 'error') return result;
    const failure = opened.failure();
    return failure ? { done: false, value: errorEvent(failure) } : result;
  };
  const iterator: ReadyIterator<Event> = {
    next: () => events.next().then(replace),
    takeReady: () => {
      const event = events.takeReady();
      return event === undefined || event.type !== 'error' ? event : (replace({ done: false, value: event }) as IteratorYieldResult<Event>).value;
    },
    return: (value?: unknown) => events.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/**
 * The most bytes a whole (non-streamed) response body may have: 64 MiB, room for generated images
 * in base64. A longer body is an `invalid_response` error, not an unbounded buffer.
 */
export const MAX_WHOLE_BODY_BYTES = 64 * 1024 * 1024;

/**
 * A whole JSON response body (a request sent with `stream: false`) -> protocol events: the body is read
 * (at most `MAX_WHOLE_BODY_BYTES`), parsed, given to `onBody`, and replayed through the dialect's
 * stream decoder (`replayBody`), so both forms are mapped by one decoder.
 *
 * @example
 * for await (const event of decodeWholeResponse(dialect, opened, { onBody: (body) => keep(body) })) handle(event);
 */
export async function* decodeWholeResponse(
  dialect: ClientDialect,
  opened: OpenedStream,
  options: DecodeResponseOptions & { onBody?: ((body: unknown) => void) | undefined } = {},
): AsyncGenerator<Event> {
  const decoder = dialect.createDecoder(options.decoderOptions);
  const read = await readWhole(opened.body, MAX_WHOLE_BODY_BYTES);
  if (!read.ok) {
    yield* decoder.fail(opened.failure() ?? (read.tooLong ? { code: 'invalid_response', message: `The response body is longer than ${MAX_WHOLE_BODY_BYTES} bytes` } : { code: 'network', message: read.message, retryable: true }));
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(read.text);
  } catch (error) {
    yield* decoder.fail({ code: 'invalid_response', message: `The response body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` });
    return;
  }
  options.onBody?.(body);
  for (const wire of dialect.replayBody?.(body) ?? []) yield* decoder.push(wire);
  yield* decoder.end();
}

async function readWhole(body: ReadableStream<Uint8Array>, limit: number): Promise<{ ok: true; text: string } | { ok: false; tooLong: boolean; message: string }> {
  const reader = body.getReader();
  const text = new TextDecoder();
  let out = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { ok: true, text: out + text.decode() };
      bytes += value.byteLength;
      if (bytes > limit) {
        await reader.cancel().catch(() => {});
        return { ok: false, tooLong: true, message: 'too long' };
      }
      out += text.decode(value, { stream: true });
    }
  } catch (error) {
    return { ok: false, tooLong: false, message: `The connection failed while reading the body: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    reader.releaseLock();
  }
}
