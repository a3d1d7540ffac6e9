/**
 * ModelRequest to a Chat Completions request body
 * (https://platform.openai.com/docs/api-reference/chat/create). The message rules
 * (handoff, tool-call ids, reasoning round trip) are in encode-messages.ts.
 *
 * - Streams (unless `options.stream` is false), with `stream_options.include_usage` so the usage chunk is sent
 *   (https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options).
 * - `maxOutputTokens` -> `max_completion_tokens` (it counts reasoning tokens too;
 *   `max_tokens` is deprecated and rejected by OpenAI reasoning models). A server that
 *   only knows `max_tokens` can get it through `extra`.
 * - `thinking` -> `reasoning_effort`
 *   (https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort):
 *   `false` -> 'none'; an effort level is sent as is; a token budget (the API has none)
 *   maps to the nearest effort: <= 2048 'low', <= 8192 'medium', more 'high' (0 -> 'none').
 *   Provider-specific switches (DeepSeek/Z.ai `thinking: {type}`, Alibaba
 *   `enable_thinking`, OpenRouter `reasoning: {max_tokens}`) go in `extra`.
 * - `output` -> `response_format: {type: 'json_schema', json_schema: {name, description,
 *   schema, strict}}` (https://platform.openai.com/docs/guides/structured-outputs), strict
 *   unless `output.strict === false`.
 * - `cache.key` -> `prompt_cache_key` (https://platform.openai.com/docs/guides/prompt-caching).
 *   Caching is automatic on a prefix; breakpoints and ttl are not sent (OpenAI's explicit
 *   `prompt_cache_breakpoint` is for its newest models only, and compatible servers
 *   reject unknown content-part fields).
 * - `extra` is merged last, verbatim.
 */
import type { ModelRequest, ReasoningEffort, ThinkingSetting, ToolChoice, ToolDefinition } from '@parlance/protocol';
import { strictOrLoose } from '../shared/strict-schema.ts';
import type { EncodeOptions } from '../types.ts';
import { encodeMessages } from './encode-messages.ts';
import type { JsonObject } from './mappings.ts';
import { summariesAsText } from '../shared/summary-parts.ts';

/** Tools: https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools */
function encodeTool(tool: ToolDefinition, index: number, warn: EncodeOptions['onWarning']): JsonObject {
  const fn: JsonObject = { name: tool.name };
  if (tool.description !== undefined) fn.description = tool.description;
  const { schema, strict } = strictOrLoose(tool.inputSchema, tool.strict === true, `tools[${index}].strict`, warn);
  fn.parameters = schema;
  if (tool.strict !== undefined) fn.strict = strict;
  return { type: 'function', function: fn };
}

/** https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice */
function encodeToolChoice(choice: ToolChoice): unknown {
  if (typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
}

export function reasoningEffort(thinking: ThinkingSetting): ReasoningEffort | 'none' | undefined {
  if (thinking === false) return 'none';
  if (thinking.effort !== undefined) return thinking.effort;
  const budget = thinking.budgetTokens;
  if (budget === undefined) return undefined;
  if (budget <= 0) return 'none';
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

/** `json_schema.name` must be a-z, A-Z, 0-9, `_` or `-`, at most 64 characters. */
function schemaName(name: string | undefined): string {
  const cleaned = (name ?? '').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'response' : cleaned;
}

export function encodeRequest(original: ModelRequest, options: EncodeOptions = {}): Record<string, unknown> {
  const request = summariesAsText(original);
  const warn = options.onWarning;
  const body: JsonObject = { model: request.model, messages: encodeMessages(request, options) };
  const hasTools = request.tools !== undefined && request.tools.length > 0;
  if (hasTools) body.tools = request.tools!.map((tool, i) => encodeTool(tool, i, warn));
  // "tool_choice is only allowed when tools are specified"
  if (request.toolChoice !== undefined && !hasTools) warn?.({ setting: 'toolChoice', message: 'tool_choice was not sent: the request has no tools' });
  else if (request.toolChoice !== undefined) body.tool_choice = encodeToolChoice(request.toolChoice);
  if (request.maxOutputTokens !== undefined) body.max_completion_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop && request.stop.length > 0) body.stop = request.stop;
  if (request.thinking !== undefined) {
    const effort = reasoningEffort(request.thinking);
    if (effort !== undefined) body.reasoning_effort = effort;
  }
  if (request.output) {
    const jsonSchema: JsonObject = { name: schemaName(request.output.name) };
    if (request.output.description !== undefined) jsonSchema.description = request.output.description;
    const { schema, strict } = strictOrLoose(request.output.schema, request.output.strict ?? true, 'output.strict', warn);
    jsonSchema.schema = schema;
    jsonSchema.strict = strict;
    body.response_format = { type: 'json_schema', json_schema: jsonSchema };
  }
  if (request.cache?.key !== undefined) body.prompt_cache_key = request.cache.key;
  // A whole body always carries its usage; `stream_options` is refused without `stream: true`.
  if (options.stream === false) body.stream = false;
  else {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return { ...body, ...request.extra };
}
