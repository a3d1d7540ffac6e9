/**
 * The OpenAI Chat Completions dialect (`POST /chat/completions`, SSE), spoken by
 * OpenAI, Groq, OpenRouter, DeepSeek, Together, Fireworks, Moonshot, Z.ai, Alibaba,
 * Mistral, xAI, vLLM and LM Studio: https://platform.openai.com/docs/api-reference/chat
 */
import type { Dialect } from '../types.ts';
import { decodeCompletionsRequest } from './decode-request.ts';
import { completionsResponseEncoding } from './encode-response.ts';
import { createDecoder } from './decode.ts';
import { encodeRequest } from './encode.ts';

/**
 * 
 *
 * @example
 * const body = openaiCompletions.encodeRequest({ model: 'gpt-4.1', messages, tools });
 */
export const openaiCompletions: Dialect = {
  ...completionsResponseEncoding,
  decodeRequest: decodeCompletionsRequest,
  id: 'openai_completions',
  framing: 'sse',
  path: () => '/chat/completions',
  encodeRequest,
  createDecoder,
};

export { DEFAULT_REASONING_FIELDS, type ReasoningState } from './decode.ts';
export { toolCallWireId } from './encode-messages.ts';
export { mapFinishReason, mapProviderError, mapUsage } from './mappings.ts';
