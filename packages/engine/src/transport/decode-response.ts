/**
 * An opened response body -> protocol events, through the dialect's decoder. The
 * decoder only sees that a read failed; the transport knows why (idle timeout,
 * connection reset, abort), so its error replaces the decoder's generic one.
 */
import type { ClientDialect, DecoderOptions } from '@parlance/dialects';
import { decodeStream } from '@parlance/dialects';
import { errorEvent, type Event } from '@parlance/protocol';
import type { OpenedStream } from './transport.ts';

export interface DecodeResponseOptions {
  signal?: AbortSignal | undefined;
  decoderOptions?: DecoderOptions | undefined;
}

export async function* decodeResponse(
  dialect: ClientDialect,
  opened: OpenedStream,
  options: DecodeResponseOptions = {},
): AsyncGenerator<Event> {
  const decodeOptions = options.signal ? { ...options.decoderOptions, signal: options.signal } : { ...options.decoderOptions };
  for await (const event of decodeStream(dialect, opened.body, decodeOptions)) {
    const failure = event.type === 'error' ? opened.failure() : undefined;
    yield failure ? errorEvent(failure) : event;
  }
}
