/**
 * Messages and parts: the shape every package speaks. Plain JSON data only, so a
 * thread can be saved, sent and reloaded anywhere (see thread.ts).
 */

import type { ErrorPayload } from './error.ts';
import type { RunPause } from './pause.ts';

/**
 * Provider data a dialect keeps on a part or message to send it back unchanged (signatures, encrypted reasoning), keyed by dialect.
 *
 * @example
 * const anthropic = part.providerState?.anthropic_messages;
 */
export type ProviderState = Record<string, unknown>;

/**
 * Who a message is from.
 *
 * @example
 * const role: Role = 'assistant';
 */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

interface PartBase {
  providerState?: ProviderState;
}

/**
 * Text the user wrote or the model answered.
 *
 * @example
 * const part: TextPart = { type: 'text', text: 'Hello' };
 */
export interface TextPart extends PartBase {
  type: 'text';
  text: string;
}

/**
 * The model's reasoning (with the provider's signature, when it gives one, so it can be sent back).
 *
 * @example
 * if (part.type === 'reasoning') console.log('thinking:', part.text);
 */
export interface ReasoningPart extends PartBase {
  type: 'reasoning';
  text: string;
  signature?: string;
  /** The provider withheld the text (Anthropic `redacted_thinking`, encrypted-only reasoning); the data lives in providerState. */
  redacted?: boolean;
}

/**
 * A tool call the model made: its id, the tool's name and the input.
 *
 * @example
 * const call: ToolCallPart = { type: 'tool-call', id: 'call_1', name: 'weather', input: { city: 'Oslo' } };
 */
export interface ToolCallPart extends PartBase {
  type: 'tool-call';
  id: string;
  name: string;
  input: unknown;
  /** Executed by the provider itself (web search, code interpreter, MCP): no local result is owed. */
  providerExecuted?: boolean;
  /** The server's signature over this call (thread, message, id, name, input): only signed calls run. */
  signature?: string;
}

/**
 * The result of a tool call (in a `tool` message), or its error with `isError`.
 *
 * @example
 * const result: ToolResultPart = { type: 'tool-result', toolCallId: 'call_1', name: 'weather', output: { temperatureC: 21 } };
 */
export interface ToolResultPart extends PartBase {
  type: 'tool-result';
  toolCallId: string;
  name: string;
  output: unknown;
  isError?: boolean;
  providerExecuted?: boolean;
  /** The server's signature over this result and the call it answers: a browser cannot invent or edit a result. */
  signature?: string;
}

/**
 * A file the server stored (`POST /files`), as the thread holds it instead of its bytes: the
 * server's id, media type, size and SHA-256, signed for the principal that uploaded it. The server
 * resolves it when it encodes a model request; an edited, unsigned or another principal's reference
 * is refused like a forged tool call (see SECURITY.md).
 *
 * @example
 * const ref: FileRef = { id: 'file_4f2a…', mediaType: 'image/png', size: 48213, sha256: '9f86d0…', signature: 'p3.…' };
 */
export interface FileRef {
  id: string;
  mediaType: string;
  /** Bytes. */
  size: number;
  /** The bytes' SHA-256, lowercase hex. */
  sha256: string;
  /** The server's signature over the fields above and the principal it was issued to. */
  signature: string;
}

/**
 * A file: an image, audio or a document, inline (base64 `data`), by `url`, or by a reference to
 * a file the server stored (`ref`, see `FileRef`). A dialect sees only `data` and `url`: the
 * engine resolves references before it encodes a request.
 *
 * @example
 * const image: FilePart = { type: 'file', mediaType: 'image/png', data: pngBase64 };
 */
export type FilePart = PartBase & {
  type: 'file';
  mediaType: string;
  filename?: string;
} & ({ data: string; url?: undefined; ref?: undefined } | { url: string; data?: undefined; ref?: undefined } | { ref: FileRef; data?: undefined; url?: undefined });

/**
 * A file part as a dialect encodes it: inline `data` or a `url` (references are resolved before).
 *
 * @example
 * function encode(part: InlineFilePart) { return part.data ?? part.url; }
 */
export type InlineFilePart = Exclude<FilePart, { ref: FileRef }>;

/**
 * A source the model cited (web search results, documents).
 *
 * @example
 * const links = message.parts.flatMap((p) => (p.type === 'source' ? [p.url] : []));
 */
export interface SourcePart extends PartBase {
  type: 'source';
  url: string;
  title?: string;
}

/**
 * A summary of earlier messages, written by a model when the thread outgrew the model's
 * context window (the engine's `context: { strategy: 'summarize' }`). It sits in a
 * user-role message of its own, where it was made; the messages it summarizes stay in
 * the thread for people to read, but requests send the summary in their place.
 * User role, not system: clients send threads back, and nothing a browser sends may
 * reach the system prompt; a summary is the conversation's own content. Dialects send
 * it as text.
 *
 * @example
 * ```ts
 * const part: SummaryPart = { type: 'summary', text: 'The user asked about…', through: 'msg-41' };
 * ```
 */
export interface SummaryPart extends PartBase {
  type: 'summary';
  text: string;
  /** The id of the last message it summarizes: that message and every one before it are replaced by the summary. */
  through: string;
}

/**
 * A provider's own summary of the turns before it, made server-side when the context filled up
 * (Anthropic's compaction block). The provider drops what came before it when the part is sent
 * back, so it round-trips only to its own dialect (the data it needs is in providerState);
 * other dialects leave it out and keep the full history. Not reasoning and not the answer.
 *
 * @example
 * ```ts
 * const part: CompactionPart = { type: 'compaction', text: 'Earlier, the user asked about Paris…', providerState: { anthropic_messages: { type: 'compaction' } } };
 * ```
 */
export interface CompactionPart extends PartBase {
  type: 'compaction';
  /** The summary; empty when the provider's compaction failed (it then has no effect). */
  text: string;
}

/**
 * Any part of a message: text, reasoning, a tool call or its result, a file, a source, a summary, ...
 *
 * @example
 * const text = message.parts.filter((p): p is TextPart => p.type === 'text').map((p) => p.text).join('');
 */
export type Part = TextPart | ReasoningPart | ToolCallPart | ToolResultPart | FilePart | SourcePart | SummaryPart | CompactionPart;
/**
 * The `type` of any part.
 *
 * @example
 * const counts = new Map<PartType, number>();
 */
export type PartType = Part['type'];

/**
 * Where an assistant message came from: provider, model, dialect.
 *
 * @example
 * if (message.provenance?.provider === 'anthropic') showBadge('Claude');
 */
export interface Provenance {
  provider: string;
  model: string;
  dialect: string;
}

/**
 * One message of a thread: a role and its parts, with optional provenance (which provider/model wrote it) and metadata.
 *
 * @example
 * const message: Message = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] };
 */
export interface Message {
  id: string;
  role: Role;
  parts: Part[];
  /** ISO 8601 timestamp. */
  createdAt?: string;
  metadata?: Record<string, unknown>;
  provenance?: Provenance;
  /** On an assistant message: the run paused here, waiting for these inputs (see `pendingInputs`). */
  pause?: RunPause;
  /**
   * On an assistant message: the turn failed here, with this error (what the user saw). A failed
   * turn stays in the thread; a model request leaves out a failed message with no parts and the
   * user turn it failed to answer, so the next message is never merged into the failed one.
   */
  error?: ErrorPayload;
}

/**
 * The text a model reads in a part that is sent as plain text (text and summary parts); undefined for other parts.
 *
 * @example
 * const texts = message.parts.map(partText).filter(Boolean);
 */
export function partText(part: Part): string | undefined {
  return part.type === 'text' || part.type === 'summary' ? part.text : undefined;
}

/**
 * The text of a message's text parts, joined.
 *
 * @example
 * messageText({ parts: [{ type: 'text', text: 'Hello' }, { type: 'reasoning', text: '…' }, { type: 'text', text: ' world' }] }); // 'Hello world'
 */
export function messageText(message: Pick<Message, 'parts'>): string {
  let out = '';
  for (const part of message.parts) if (part.type === 'text') out += part.text;
  return out;
}
