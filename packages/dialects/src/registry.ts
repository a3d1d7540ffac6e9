/**
 * All five dialects by id. Importing `getDialect` bundles every dialect, both sides (./client-registry.ts
 * holds the client sides alone); an app that
 * speaks one imports its subpath (`@parlance/dialects/anthropic-messages`) instead.
 */
import type { Event, ReadyIterator } from '@parlance/protocol';
import { getClientDialect, isDialectId, unknownDialect } from './client-registry.ts';
import { anthropicMessages } from './anthropic-messages/index.ts';
import { decodeDialectStream, decodeDialectText, type DecodeStreamOptions } from './decode-stream.ts';
import { googleGemini } from './google-gemini/index.ts';
import { ollamaChat } from './ollama-chat/index.ts';
import { openaiCompletions } from './openai-completions/index.ts';
import { openaiResponses } from './openai-responses/index.ts';
import type { ClientDialect, Dialect, DialectId, DecoderOptions } from './types.ts';

const dialects: Record<DialectId, Dialect> = {
  openai_completions: openaiCompletions,
  openai_responses: openaiResponses,
  anthropic_messages: anthropicMessages,
  google_gemini: googleGemini,
  ollama_chat: ollamaChat,
};

/**
 * The dialect with this id (throws `invalid_request` for an unknown one): encode a request, decode a stream.
 *
 * @example
 * const body = getDialect('google_gemini').encodeRequest({ model: 'gemini-2.5-flash', messages });
 */
export function getDialect(id: DialectId | string): Dialect {
  if (!isDialectId(id)) throw unknownDialect(id);
  return dialects[id];
}

/**
 * Decodes a provider's streamed HTTP body (SSE or NDJSON, cut anywhere) into protocol events; ends with exactly one `finish`.
 *
 * @example
 * for await (const event of decodeStream('openai_completions', response.body!)) {
 *   if (event.type === 'text-delta') process.stdout.write(event.delta);
 * }
 */
export function decodeStream(
  dialect: DialectId | ClientDialect,
  body: ReadableStream<Uint8Array>,
  options?: DecodeStreamOptions,
): ReadyIterator<Event> {
  return decodeDialectStream(typeof dialect === 'string' ? getClientDialect(dialect) : dialect, body, options);
}

/**
 * Decodes a whole recorded stream (a string or bytes) at once.
 *
 * @example
 * const events = decodeText('anthropic_messages', readFileSync('stream.sse', 'utf8'));
 */
export function decodeText(dialect: DialectId | ClientDialect, text: string | Uint8Array, options?: DecoderOptions): Event[] {
  return decodeDialectText(typeof dialect === 'string' ? getClientDialect(dialect) : dialect, text, options);
}
