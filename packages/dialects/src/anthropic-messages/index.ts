/**
 * The Anthropic Messages API, streamed as SSE: https://docs.anthropic.com/en/api/messages
 * Encoding lives in ./encode.ts (+ ./messages.ts), decoding in ./decode.ts.
 */
import type { Dialect } from '../types.ts';
import { anthropicMessagesClient } from './client.ts';
import { decodeAnthropicRequest } from './decode-request.ts';
import { anthropicResponseEncoding } from './encode-response.ts';

/**
 * The Anthropic Messages dialect (`POST /v1/messages`, SSE).
 *
 * @example
 * const body = anthropicMessages.encodeRequest({ model: 'claude-sonnet-4-5', messages });
 * const decoder = anthropicMessages.createDecoder();
 */
export const anthropicMessages: Dialect = {
  ...anthropicMessagesClient,
  ...anthropicResponseEncoding,
  decodeRequest: decodeAnthropicRequest,
};

export { anthropicRequestHeaders, closeObjectSchemas, COMPACTION_BETA, DEFAULT_MAX_TOKENS, EFFORT_BUDGETS, encodeAnthropicRequest, ANTHROPIC_FILES_BETA } from './encode.ts';
export { createAnthropicDecoder } from './decode.ts';
export { DIALECT_KEY, type AnthropicState } from './mappings.ts';
export { anthropicMessagesClient } from './client.ts';
