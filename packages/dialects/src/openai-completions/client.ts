/**
 * The client half of the OpenAI Chat Completions dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import type { ClientDialect } from '../types.ts';
import { createDecoder } from './decode.ts';
import { encodeRequest } from './encode.ts';

/** The client half of `openaiCompletions`. */
export const openaiCompletionsClient: ClientDialect = {
  id: 'openai_completions',
  framing: 'sse',
  path: () => '/chat/completions',
  encodeRequest,
  createDecoder,
};
