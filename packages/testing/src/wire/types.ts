/**
 * Wire encoders: the reverse of a dialect decoder. They turn protocol events into
 * the bytes a provider would send, so tests, benchmarks and demos can exercise the
 * real HTTP and decoding path without a key. Push-based like the decoders: one call
 * per protocol event, returning the wire frames (SSE frames or NDJSON lines) it
 * produced, already serialised.
 */
import type { ErrorCode, Event, Usage } from '@parlance/protocol';

export interface WireEncoderOptions {
  /** The model name the provider reports (default 'mock-model'). */
  model?: string;
  /** The provider's response id (default a fixed id per dialect). */
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
}

export interface WireError {
  code: ErrorCode;
  message: string;
  status?: number;
}

export interface WireEncoder {
  /** Frames for one protocol event; none when the provider carries it in a later frame. */
  push(event: Event): string[];
  /** Frames that close a complete stream (`data: [DONE]` for Chat Completions). */
  end(): string[];
  /** A provider error reported in the middle of the stream, in the provider's shape. */
  error(error: WireError): string[];
}

/** An HTTP error response as the provider sends it before any streamed byte. */
export interface WireHttpError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One SSE frame. JSON.stringify never emits a raw newline, so one `data:` line suffices. */
export function sseFrame(data: unknown, event?: string, eol = '\n'): string {
  return `${event === undefined ? '' : `event: ${event}${eol}`}data: ${JSON.stringify(data)}${eol}${eol}`;
}

/** One NDJSON line. */
export function ndjsonLine(data: unknown): string {
  return `${JSON.stringify(data)}\n`;
}

/** The default HTTP status for each error code (what a provider answers with). */
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
