/**
 * The client half of the Ollama chat dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import type { ClientDialect } from '../types.ts';
import { createOllamaDecoder } from './decode.ts';
import { encodeOllamaRequest } from './encode.ts';

/** The client half of `ollamaChat`. */
export const ollamaChatClient: ClientDialect = {
  id: 'ollama_chat',
  framing: 'ndjson',
  path: () => '/api/chat',
  encodeRequest: encodeOllamaRequest,
  createDecoder: () => createOllamaDecoder(),
};
