/**
 * Response encoding: the reverse of a decoder. A dialect's response encoder turns protocol
 * events into the bytes that provider streams to its own clients (SSE frames or NDJSON
 * lines), and its body encoder turns a collected response into the provider's non-streaming
 * JSON body. A gateway answers an SDK with them; `@parlance/testing` builds its mock
 * provider on them.
 */
import type { ErrorCode, Event, Response, Usage } from '@parlance/protocol';

/**
 * What the encoders put in the identity fields of a response.
 *
 * @example
 * ```ts
 * getDialect('openai_completions').createResponseEncoder({ model: 'fast', responseId: 'chatcmpl-1', created: 1_700_000_000 });
 * ```
 */
export interface ResponseEncoderOptions {
  /** The model name reported to the client (default `'mock-model'`). */
  model?: string;
  /** The response id (default a fixed id per dialect, so output is reproducible). */
  responseId?: string;
  /** Unix seconds for `created` fields (default a fixed time, so output is reproducible). */
  created?: number;
  /**
   * The response's final usage, when known up front. Anthropic reports input tokens in
   * `message_start`, before any content, so its encoder needs them before the `usage` event.
   */
  usage?: Usage;
  /**
   * Gemini only: stream function-call arguments as `partialArgs` (Vertex AI's
   * `streamFunctionCallArguments`), each string value cut into pieces of this many characters.
   * Without it, Gemini sends every call whole, as the Gemini API does by default.
   */
  geminiArgumentPieceLength?: number;
  /**
   * Chat Completions only: send the usage chunk at the end of a stream (default true). OpenAI
   * sends it only when the request asked with `stream_options.include_usage`.
   */
  includeUsage?: boolean;
}

/**
 * An error to report to a client, in its provider's shape.
 *
 * @example
 * ```ts
 * getDialect('anthropic_messages').encodeError({ code: 'overloaded', message: 'Try again' }); // status 529, an Anthropic error body
 * ```
 */
export interface ResponseError {
  code: ErrorCode;
  message: string;
  /** The HTTP status (default: what the provider answers for the code). */
  status?: number;
}

/**
 * A push-based streaming encoder: one call per protocol event, returning the serialised
 * frames that event produced (none when the provider carries it in a later frame).
 *
 * @example
 * ```ts
 * const encoder = getDialect('anthropic_messages').createResponseEncoder({ model: 'claude' });
 * for await (const event of model.stream(request)) for (const frame of encoder.push(event)) write(frame);
 * for (const frame of encoder.end()) write(frame);
 * ```
 */
export interface ResponseEncoder {
  push(event: Event): string[];
  /** Frames that close a complete stream (`data: [DONE]` for Chat Completions). */
  end(): string[];
  /** A failure reported in the middle of the stream, in the provider's shape. */
  error(error: ResponseError): string[];
}

/**
 * An HTTP error response as the provider sends it before any streamed byte.
 *
 * @example
 * ```ts
 * const { status, headers, body } = getDialect('google_gemini').encodeError({ code: 'rate_limited', message: 'Slow down' });
 * return new Response(body, { status, headers });
 * ```
 */
export interface EncodedHttpError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What each dialect offers for the server side of its API (every `Dialect` has it).
 *
 * @example
 * ```ts
 * const body = getDialect('openai_responses').encodeResponse(await collectResponse(events), { model: 'fast' });
 * ```
 */
export interface ResponseEncoding {
  /** The streaming response's content type. */
  streamContentType: string;
  createResponseEncoder(options?: ResponseEncoderOptions): ResponseEncoder;
  /** The non-streaming response body for a collected response. */
  encodeResponse(response: Response, options?: ResponseEncoderOptions): Record<string, unknown>;
  /** The provider's HTTP error response. */
  encodeError(error: ResponseError): EncodedHttpError;
}

/**
 * One SSE frame. JSON.stringify never emits a raw newline, so one `data:` line suffices.
 *
 * @example
 * ```ts
 * sseFrame({ type: 'ping' }, 'ping'); // 'event: ping\ndata: {"type":"ping"}\n\n'
 * ```
 */
export function sseFrame(data: unknown, event?: string, eol = '\n'): string {
  return `${event === undefined ? '' : `event: ${event}${eol}`}data: ${JSON.stringify(data)}${eol}${eol}`;
}

/**
 * One NDJSON line.
 *
 * @example
 * ```ts
 * ndjsonLine({ done: true }); // '{"done":true}\n'
 * ```
 */
export function ndjsonLine(data: unknown): string {
  return `${JSON.stringify(data)}\n`;
}

/**
 * The HTTP status a provider answers with for each error code.
 *
 * @example
 * ```ts
 * statusForCode('rate_limited'); // 429
 * ```
 */
export function statusForCode(code: ErrorCode): number {
  switch (code) {
    case 'invalid_request':
    case 'context_length_exceeded':
    case 'content_filter':
      return 400;
    case 'authentication':
      return 401;
    case 'permission':
      return 403;
    case 'not_found':
      return 404;
    case 'timeout':
      return 504;
    case 'rate_limited':
      return 429;
    case 'overloaded':
      return 503;
    default:
      return 500;
  }
}

/**
 * The whole stream of an event list as one string (tests, fixtures).
 *
 * @example
 * ```ts
 * const sse = encodeResponseStream(getDialect('anthropic_messages'), events, { model: 'claude' });
 * ```
 */
export function encodeResponseStream(encoding: ResponseEncoding, events: readonly Event[], options?: ResponseEncoderOptions): string {
  const encoder = encoding.createResponseEncoder(options);
  let out = '';
  for (const event of events) out += encoder.push(event).join('');
  return out + encoder.end().join('');
}
