/**
 * What a dialect is: pure translation between the protocol and one wire format.
 * No fetch, no timers, no globals, no configuration beyond the decoder's quirk options.
 */
import type { ErrorCode, Event, ModelRequest } from '@parlance/protocol';
import type { RequestDecoding } from './shared/request-decoding.ts';
import type { ResponseEncoding } from './shared/response-encoding.ts';

/**
 * 
 *
 * @example
 * const id: DialectId = 'google_gemini';
 */
export type DialectId = 'openai_completions' | 'openai_responses' | 'anthropic_messages' | 'google_gemini' | 'ollama_chat';

/**
 * The five dialect ids.
 *
 * @example
 * for (const id of DIALECT_IDS) console.log(id, getDialect(id).framing);
 */
export const DIALECT_IDS = [
  'openai_completions',
  'openai_responses',
  'anthropic_messages',
  'google_gemini',
  'ollama_chat',
] as const satisfies readonly DialectId[];

/**
 * One framed message from the wire: an SSE event, or one NDJSON line as `data`.
 *
 * @example
 * const wire: WireEvent = { event: 'message_start', data: '{"type":"message_start"}' };
 */
export interface WireEvent {
  event?: string | undefined;
  data: string;
  id?: string | undefined;
}

/**
 * Why a transport failed mid-stream (what `Decoder.fail` takes).
 *
 * @example
 * decoder.fail({ code: 'network', message: 'connection reset', retryable: true });
 */
export interface DecoderFailure {
  code: ErrorCode;
  message: string;
  retryable?: boolean;
  status?: number;
}

/**
 * Push-based and I/O-free, in the eventsource-parser shape: state lives in the
 * closure; each call returns the protocol events it produced.
 *
 * @example
 * const decoder = getDialect('openai_responses').createDecoder();
 * const events = [...frames.flatMap((f) => decoder.push(f)), ...decoder.end()];
 */
export interface Decoder {
  push(wire: WireEvent): Event[];
  /** The body ended. Emits `finish` if the stream had one coming, or an `invalid_response` error if it was cut. */
  end(): Event[];
  /** The transport failed (network error, abort): closes what is open, keeps what arrived, emits error + finish. */
  fail(failure: DecoderFailure): Event[];
}

/**
 * Per-provider quirks of a shared wire format. Each is an option on the one
 * decoder, never a copy of it.
 *
 * @example
 * getDialect('openai_completions').createDecoder({ reasoningFields: ['reasoning'] });
 */
export interface DecoderOptions {
  /** Tool-call ids: some providers repeat the id on every chunk, some send none. */
  toolCallIds?: 'first' | 'synthesize';
  /** Field names carrying reasoning text, in order of preference (Chat Completions). */
  reasoningFields?: readonly string[];
  /**
   * `false`: whoever reads the events takes the answer's text from the provider's bytes (a gateway
   * passing a stream on unchanged), so text and reasoning deltas may be left out of the events where
   * the decoder can tell one from its first bytes and its last without parsing it, in the form the API
   * writes it: Anthropic's `text_delta` and `thinking_delta` of an open block, and Ollama's lines that
   * only add text to an open text block. Everything else is decoded as always: blocks still start
   * and end, and tool calls, signatures, usage, the finish and failures are the same events. A skipped
   * delta is not checked for valid JSON (the bytes' reader parses it). Default `true` (every delta decoded).
   */
  textDeltas?: boolean;
}

/**
 * How a dialect builds a request path: whether the call streams.
 *
 * @example
 * openaiResponses.path('gpt-5-mini', { stream: true }); // '/responses'
 */
export interface PathOptions {
  stream?: boolean;
}

/**
 * A setting the encoder left out (or changed) because the API would reject the request with it.
 *
 * @example
 * { setting: 'thinking', message: 'Anthropic rejects thinking with a forced tool: thinking was turned off for this request' }
 */
export interface EncodeWarning {
  /** The request field concerned: `temperature`, `topP`, `thinking`, `toolChoice`, `output.strict`, `tools[2].strict`, ... */
  setting: string;
  message: string;
}

/**
 * Options of `encodeRequest`.
 *
 * @example
 * const warnings: EncodeWarning[] = [];
 * const body = anthropicMessages.encodeRequest(request, { onWarning: (w) => warnings.push(w) });
 */
export interface EncodeOptions {
  /** Called for each setting left out or changed so the request is one the API accepts. */
  onWarning?: (warning: EncodeWarning) => void;
  /**
   * Chat Completions: the reasoning fields this vendor takes back on assistant messages
   * (default both: DeepSeek-style `reasoning_content`, OpenRouter `reasoning_details`). Reasoning
   * kept for a field the vendor rejects (Groq 400, Mistral 422 `extra_forbidden`, Cerebras 400)
   * is left out, with a warning.
   */
  reasoningFields?: readonly ('reasoning_content' | 'reasoning_details')[];
  /**
   * `false` asks for one JSON body instead of a stream (default `true`); send it to
   * `path(model, { stream: false })` and read the body with `replayBody`.
   */
  stream?: boolean;
}

/**
 * The client side of a dialect: encode a request, decode the stream. What calling a provider needs;
 * `getClientDialect` returns it without bundling the server side (request decoding, response encoding).
 *
 * @example
 * const dialect: ClientDialect = getClientDialect('ollama_chat');
 * console.log(dialect.framing, dialect.path('llama3.2', { stream: true }));
 */
export interface ClientDialect {
  id: DialectId;
  framing: 'sse' | 'ndjson';
  /** The request path relative to the provider's base URL. */
  path(model: string, options?: PathOptions): string;
  /** The JSON body for a streaming request. */
  encodeRequest(request: ModelRequest, options?: EncodeOptions): Record<string, unknown>;
  /**
   * HTTP headers an encoded body needs (e.g. Anthropic's `anthropic-beta` for beta blocks);
   * the transport adds them to its own.
   */
  requestHeaders?(body: Record<string, unknown>): Record<string, string>;
  createDecoder(options?: DecoderOptions): Decoder;
  /**
   * Binary framing (Amazon's event stream): bytes -> wire events, used instead of UTF-8 text through
   * `framing`. A dialect without it is framed as text.
   */
  createByteFramer?(): ByteFramer;
  /**
   * A whole (non-streamed) response body as the stream frames that carry the same content, for
   * `createDecoder`: one decoder reads both forms, so every field (reasoning, signatures, cached
   * tokens, vendor quirks) is mapped in one place. Each API's body is its stream's final state:
   * one chunk (Chat Completions with `message` as the `delta`, Gemini, Ollama), a `message_start`
   * whose message holds the whole content (Anthropic), a `response.created` and the final event
   * (Responses). Absent on a dialect that can only stream.
   */
  replayBody?(body: unknown): WireEvent[];
}

/**
 * Frames a binary body into wire events. `push` throws an Error whose message says what is wrong
 * when the bytes are not valid framing (a checksum mismatch); the decoder reports it as `invalid_response`.
 *
 * @example
 * const framer: ByteFramer = { push: (bytes) => [{ data: new TextDecoder().decode(bytes) }], flush: () => [] };
 */
export interface ByteFramer {
  push(bytes: Uint8Array): WireEvent[];
  /** The body ended: throws when it ended inside a frame. */
  flush(): WireEvent[];
}

/**
 * A dialect: the client side (encode a request, decode the stream) and the server side (decode a request, encode responses).
 *
 * @example
 * const dialect: Dialect = getDialect('ollama_chat');
 * console.log(dialect.framing, dialect.path('llama3.2', { stream: true }));
 */
export interface Dialect extends ClientDialect, ResponseEncoding, RequestDecoding {}
