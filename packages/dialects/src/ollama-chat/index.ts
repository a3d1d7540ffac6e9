/**
 * Ollama's native chat API: `POST /api/chat`, streamed as NDJSON.
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 */
import type { Dialect } from '../types.ts';
import { ollamaChatClient } from './client.ts';
import { decodeOllamaRequest } from './decode-request.ts';
import { ollamaResponseEncoding } from './encode-response.ts';

/**
 * The Ollama chat dialect (`POST /api/chat`, NDJSON).
 *
 * @example
 * const events = decodeText(ollamaChat, recordedNdjson);
 */
export const ollamaChat: Dialect = {
  ...ollamaChatClient,
  ...ollamaResponseEncoding,
  decodeRequest: decodeOllamaRequest,
};
export { ollamaChatClient } from './client.ts';
