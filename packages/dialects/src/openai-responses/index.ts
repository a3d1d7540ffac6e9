/**
 * The OpenAI Responses API (`POST /responses`, streamed as SSE).
 * https://platform.openai.com/docs/api-reference/responses/create
 * Also spoken by OpenRouter, DeepSeek, Azure OpenAI, xAI, vLLM, GitHub Copilot and other compatible servers;
 * their differences (raw reasoning text, `[DONE]`, SSE comments, rotated ids, server-side custom tools) are handled
 * by the one decoder.
 */
import type { Dialect } from '../types.ts';
import { openaiResponsesClient } from './client.ts';
import { decodeResponsesRequest } from './decode-request.ts';
import { responsesResponseEncoding } from './encode-response.ts';

/**
 * The OpenAI Responses dialect (`POST /responses`, SSE).
 *
 * @example
 * for await (const event of decodeStream(openaiResponses, response.body!)) console.log(event.type);
 */
export const openaiResponses: Dialect = {
  ...openaiResponsesClient,
  ...responsesResponseEncoding,
  decodeRequest: decodeResponsesRequest,
};
export { openaiResponsesClient } from './client.ts';
