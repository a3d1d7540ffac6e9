/**
 * The client half of the Ollama chat dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import type { ClientDialect, WireEvent } from '../types.ts';
import { createOllamaDecoder } from './decode.ts';
import { encodeOllamaRequest } from './encode.ts';

/**
 * The client half of `ollamaChat` (encode a request, decode the stream), what a provider that speaks it bundles.
 *
 * @example
 * const decoder = ollamaChatClient.createDecoder();
 */
export const ollamaChatClient: ClientDialect = {
  id: 'ollama_chat',
  framing: 'ndjson',
  path: () => '/api/chat',
  encodeRequest: encodeOllamaRequest,
  createDecoder: (options) => createOllamaDecoder(options),
  // With `stream: false` the body is the stream's last line (`done: true`) holding the whole message:
  // https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-no-streaming
  replayBody: (body: unknown): WireEvent[] => [{ data: JSON.stringify(body) }],
};
