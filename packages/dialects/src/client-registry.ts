/**
 * The client side of all five dialects by id: what the engine needs to call a provider. Kept apart
 * from ./registry.ts so a bundle that only calls providers leaves out request decoding and response
 * encoding (the gateway's half).
 */
import { ParlanceError } from '@parlance/protocol';
import { anthropicMessagesClient } from './anthropic-messages/client.ts';
import { googleGeminiClient } from './google-gemini/client.ts';
import { ollamaChatClient } from './ollama-chat/client.ts';
import { openaiCompletionsClient } from './openai-completions/client.ts';
import { openaiResponsesClient } from './openai-responses/client.ts';
import { type ClientDialect, DIALECT_IDS, type DialectId } from './types.ts';

const clients: Record<DialectId, ClientDialect> = {
  openai_completions: openaiCompletionsClient,
  openai_responses: openaiResponsesClient,
  anthropic_messages: anthropicMessagesClient,
  google_gemini: googleGeminiClient,
  ollama_chat: ollamaChatClient,
};

/**
 * Whether a string names one of the five dialects.
 *
 * @example
 * const dialect = isDialectId(query.dialect) ? query.dialect : 'openai_completions';
 */
export function isDialectId(value: unknown): value is DialectId {
  return typeof value === 'string' && (DIALECT_IDS as readonly string[]).includes(value);
}

/** The `invalid_request` error for an id that names no dialect. */
export function unknownDialect(id: string): ParlanceError {
  return new ParlanceError('invalid_request', `Unknown dialect "${id}". Known dialects: ${DIALECT_IDS.join(', ')}`);
}

/**
 * The client side of the dialect with this id (throws `invalid_request` for an unknown one):
 * encode a request, decode a stream. Unlike `getDialect`, it does not bundle request decoding
 * and response encoding.
 *
 * @example
 * const body = getClientDialect('google_gemini').encodeRequest({ model: 'gemini-2.5-flash', messages });
 */
export function getClientDialect(id: DialectId | string): ClientDialect {
  if (!isDialectId(id)) throw unknownDialect(id);
  return clients[id];
}
