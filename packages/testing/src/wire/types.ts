/**
 * Wire encoders: the dialects' response encoders under the names tests have always used.
 * They turn protocol events into the bytes a provider would send, so tests, benchmarks and
 * demos exercise the real HTTP and decoding path without a key.
 */
import type { EncodedHttpError, ResponseEncoder, ResponseEncoderOptions, ResponseError } from '@parlance/dialects';

/**
 * Options of a wire encoder (model name, response id, Gemini argument streaming).
 *
 * @example
 * createWireEncoder('anthropic_messages', { model: 'claude-test' } satisfies WireEncoderOptions);
 */
export type WireEncoderOptions = ResponseEncoderOptions;
/**
 * A provider error, reported before the stream (HTTP) or in it.
 *
 * @example
 * const error: WireError = { code: 'rate_limited', message: 'Too many requests', status: 429 };
 */
export type WireError = ResponseError;
/**
 * A push-based encoder: frames per protocol event.
 *
 * @example
 * const encoder: WireEncoder = createWireEncoder('openai_completions');
 */
export type WireEncoder = ResponseEncoder;
/**
 * An HTTP error response as the provider sends it before any streamed byte.
 *
 * @example
 * const { status, body }: WireHttpError = wireHttpError('google_gemini', { code: 'overloaded', message: 'busy', status: 503 });
 */
export type WireHttpError = EncodedHttpError;
