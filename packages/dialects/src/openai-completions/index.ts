/**
 * The OpenAI Chat Completions dialect (`POST /chat/completions`, SSE), spoken by
 * OpenAI, Groq, OpenRouter, DeepSeek, Together, Fireworks, Moonshot, Z.ai, Alibaba,
 * Mistral, xAI, vLLM and LM Studio: https://platform.openai.com/docs/api-reference/chat
 */
import type { Dialect } from '../types.ts';
import { openaiCompletionsClient } from './client.ts';
import { decodeCompletionsRequest } from './decode-request.ts';
import { completionsResponseEncoding } from './encode-response.ts';

/**
 * 
 *
 * @example
 * const body = openaiCompletions.encodeRequest({ model: 'gpt-4.1', messages, tools });
 */
export const openaiCompletions: Dialect = {
  ...openaiCompletionsClient,
  ...completionsResponseEncoding,
  decodeRequest: decodeCompletionsRequest,
};

export { DEFAULT_REASONING_FIELDS, type ReasoningState } from './decode.ts';
export { toolCallWireId } from './encode-messages.ts';
export { mapFinishReason, mapProviderError, mapUsage } from './mappings.ts';
export { openaiCompletionsClient } from './client.ts';
