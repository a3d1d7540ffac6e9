/**
 * ModelRequest -> Messages API request body: https://docs.anthropic.com/en/api/messages
 * (checked in tests against `CreateMessageParams` of the published OpenAPI document).
 * How messages, reasoning, tool calls and files are carried over (the handoff rule) is
 * documented at the top of ./messages.ts.
 *
 * Field by field:
 * - `system`: the system prompt, then the text of system-role messages, as text blocks.
 * - `max_tokens` is required by the API. Default: 8192 (the output ceiling every current
 *   model accepts). With thinking and no `maxOutputTokens`: the budget plus 8192, capped at
 *   32000 (the smallest output ceiling among thinking models, Opus 4/4.1) while the budget
 *   stays below it.
 * - `thinking`: `false` -> `{type:'disabled'}`; `{budgetTokens}` -> `{type:'enabled',
 *   budget_tokens}` (raised to the API's minimum of 1024); `{effort}` -> a budget:
 *   minimal 1024, low 2048, medium 8192 (also when neither is given), high 16384,
 *   xhigh 24576. The budget must stay below `max_tokens`: it is lowered to
 *   `maxOutputTokens - 1`, and an `invalid_request` error is thrown when that is under 1024.
 *   https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 *   Adaptive thinking (`{type:'adaptive'}` with `output_config.effort`) is left to `extra`.
 *   When the last assistant turn calls tools without a thinking block (begun by another
 *   provider), thinking is left off: the API would reject the request (see below). Each
 *   setting left out is reported through `onWarning`.
 * - `temperature`, `top_p`, `stop_sequences` as given; with thinking on, the API rejects a
 *   changed temperature and a `top_p` under 0.95, so those are left out.
 * - `tools`: `{name, description, input_schema, strict}`; `tool_choice`: auto -> auto,
 *   required -> any, a tool -> tool, none -> none (only sent with tools). Note the API
 *   rejects a forced tool (`any`/`tool`) together with thinking: thinking is then turned off
 *   for the request, with a warning (`onWarning`). Without tools `tool_choice` is not sent.
 *   https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 * - `output` -> `output_config.format: {type:'json_schema', schema}`; with `strict` (the
 *   default) every object schema without `additionalProperties` gets `false`, which the API
 *   requires. https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs
 * - `cache` (breakpoints on unless `breakpoints: false`) -> `cache_control: {type:'ephemeral',
 *   ttl?}` on the last system block, the last tool and the last cacheable block of the last
 *   message (3 of the API's 4 breakpoints). `cache.key` has no Anthropic equivalent.
 *   https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 * - `stream: true` unless `options.stream` is false; `extra` is merged last, shallowly and verbatim.
 */
import { ParlanceError, type JSONSchema, type ModelRequest, type ReasoningEffort } from '@parlance/protocol';
import { LEADING_USER_TEXT } from '../shared/leading-turn.ts';
import type { EncodeOptions } from '../types.ts';
import { samplingRules } from '../shared/sampling-rules.ts';
import { encodeMessages, type Turn } from './messages.ts';
import { summariesAsText } from '../shared/summary-parts.ts';

type Json = Record<string, unknown>;

/**
 * The `max_tokens` sent when the request sets none (the API requires one).
 *
 * @example
 * encodeAnthropicRequest({ model, messages }).max_tokens; // DEFAULT_MAX_TOKENS, or more with thinking
 */
export const DEFAULT_MAX_TOKENS = 8192;
const MIN_THINKING_BUDGET = 1024;
/** The smallest output ceiling among thinking-capable models (Claude Opus 4 and 4.1). */
const THINKING_DEFAULT_CEILING = 32000;

/**
 * Thinking budgets (tokens) for each reasoning effort, for models that take a budget.
 *
 * @example
 * encodeAnthropicRequest({ model, messages, thinking: { effort: 'high' } }); // budget_tokens: EFFORT_BUDGETS.high
 */
export const EFFORT_BUDGETS: Record<ReasoningEffort, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
};

/** Blocks that accept `cache_control` (thinking and redacted thinking do not). */
const CACHEABLE = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'server_tool_use', 'search_result']);

function systemBlocks(request: ModelRequest): Json[] {
  const texts: string[] = [];
  if (request.system) texts.push(request.system);
  for (const message of request.messages) {
    if (message.role !== 'system') continue;
    const text = message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (text !== '') texts.push(text);
  }
  return texts.map((text) => ({ type: 'text', text }));
}

/**
 * Closes object schemas (`additionalProperties: false`) where the schema leaves them open by omission.
 *
 * @example
 * closeObjectSchemas({ type: 'object', properties: { a: { type: 'string' } } }); // adds additionalProperties: false
 */
export function closeObjectSchemas(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjectSchemas);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'properties' || key === '$defs' || key === 'definitions' || key === 'patternProperties') {
      out[key] =
        typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, closeObjectSchemas(v)]))
          : value;
    } else if (['items', 'prefixItems', 'anyOf', 'allOf', 'oneOf', 'not', 'additionalProperties'].includes(key)) {
      out[key] = closeObjectSchemas(value);
    } else {
      out[key] = value;
    }
  }
  const isObjectSchema = out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object')) || 'properties' in out;
  if (isObjectSchema && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

function inputSchema(schema: JSONSchema): Json {
  return schema.type === 'object' ? schema : { ...schema, type: 'object' };
}

interface Thinking {
  config: Json;
  budget?: number;
}

function thinkingConfig(request: ModelRequest): Thinking | undefined {
  const setting = request.thinking;
  if (setting === undefined) return undefined;
  if (setting === false) return { config: { type: 'disabled' } };
  let budget = Math.max(
    MIN_THINKING_BUDGET,
    Math.floor(setting.budgetTokens ?? EFFORT_BUDGETS[setting.effort ?? 'medium'] ?? EFFORT_BUDGETS.medium),
  );
  if (request.maxOutputTokens !== undefined && budget >= request.maxOutputTokens) {
    budget = request.maxOutputTokens - 1;
    if (budget < MIN_THINKING_BUDGET) {
      throw new ParlanceError(
        'invalid_request',
        `Anthropic thinking needs at least ${MIN_THINKING_BUDGET} budget tokens below max_tokens; raise maxOutputTokens above ${MIN_THINKING_BUDGET} or turn thinking off`,
        { path: ['maxOutputTokens'] },
      );
    }
  }
  return { config: { type: 'enabled', budget_tokens: budget }, budget };
}

function maxTokens(request: ModelRequest, budget: number | undefined): number {
  if (request.maxOutputTokens !== undefined) return request.maxOutputTokens;
  if (budget === undefined) return DEFAULT_MAX_TOKENS;
  return Math.max(Math.min(budget + DEFAULT_MAX_TOKENS, THINKING_DEFAULT_CEILING), budget + MIN_THINKING_BUDGET);
}

/**
 * With thinking on, the API requires the last assistant turn, when it calls tools, to start
 * with a thinking block ("When `thinking` is enabled, a final `assistant` message must start
 * with a thinking block"), whatever the user adds after the results. A loop begun by another
 * provider or without thinking has none, and the request would be rejected, so thinking is
 * left off for that request.
 * https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#extended-thinking-with-tool-use
 */
export function toolTurnWithoutThinking(turns: readonly Turn[]): boolean {
  let last: Turn | undefined;
  for (let i = turns.length - 1; i >= 0 && !last; i--) if (turns[i]!.role === 'assistant') last = turns[i];
  if (!last?.content.some((b) => b.type === 'tool_use')) return false;
  const first = last.content[0]?.type;
  return first !== 'thinking' && first !== 'redacted_thinking';
}

function markLastCacheable(blocks: Json[], cacheControl: Json): void {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (CACHEABLE.has(block.type as string) || String(block.type).endsWith('_tool_result')) {
      blocks[i] = { ...block, cache_control: cacheControl };
      return;
    }
  }
}

/**
 * The beta a compaction block needs: https://docs.anthropic.com/en/docs/build-with-claude/compaction
 *
 * @example
 * if (headers['anthropic-beta']?.includes(COMPACTION_BETA)) console.log('compaction on');
 */
export const COMPACTION_BETA = 'compact-2026-01-12';

/**
 * The beta a Files API upload and a `source.type: 'file'` block need: https://docs.anthropic.com/en/docs/build-with-claude/files
 *
 * @example
 * const headers = { 'anthropic-beta': ANTHROPIC_FILES_BETA };
 */
export const ANTHROPIC_FILES_BETA = 'files-api-2025-04-14';

/** Whether a block (or a tool result's content) holds a Files API source. */
function holdsFileSource(block: Json): boolean {
  const source = block.source as Json | undefined;
  if (source?.type === 'file') return true;
  return Array.isArray(block.content) && (block.content as Json[]).some((inner) => typeof inner === 'object' && inner !== null && holdsFileSource(inner));
}

/**
 * `anthropic-beta` for what the body holds: compaction blocks (round-tripped) or the compaction edit,
 * and Files API sources (`ANTHROPIC_FILES_BETA`).
 *
 * @example
 * const headers = { ...anthropicRequestHeaders(body), 'anthropic-version': '2023-06-01' };
 */
export function anthropicRequestHeaders(body: Record<string, unknown>): Record<string, string> {
  const messages = Array.isArray(body.messages) ? (body.messages as Turn[]) : [];
  const compaction =
    messages.some((turn) => Array.isArray(turn.content) && turn.content.some((block) => block.type === 'compaction')) ||
    JSON.stringify(body.context_management ?? null).includes('compact_');
  const files = messages.some((turn) => Array.isArray(turn.content) && turn.content.some(holdsFileSource));
  const betas = [...(compaction ? [COMPACTION_BETA] : []), ...(files ? [ANTHROPIC_FILES_BETA] : [])];
  return betas.length ? { 'anthropic-beta': betas.join(',') } : {};
}

/**
 * The Messages API body for a request (what `anthropicMessages.encodeRequest` does).
 *
 * @example
 * const body = encodeAnthropicRequest({ model: 'claude-sonnet-4-5', messages, maxOutputTokens: 1024 });
 */
export function encodeAnthropicRequest(original: ModelRequest, options: EncodeOptions = {}): Record<string, unknown> {
  const request = summariesAsText(original);
  const warn = (setting: string, message: string) => options.onWarning?.({ setting, message });
  const body: Json = { model: request.model };
  let system = systemBlocks(request);
  let messages: Turn[] = encodeMessages(request.messages);
  if (messages.length === 0 && system.length > 0) {
    // The API needs a message; a request that is only a system prompt sends it as the user turn.
    messages = [{ role: 'user', content: system }];
    system = [];
  }
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: [{ type: 'text', text: LEADING_USER_TEXT }] });
  const hasTools = (request.tools ?? []).length > 0;
  const forced = hasTools && (request.toolChoice === 'required' || typeof request.toolChoice === 'object');
  let thinking = thinkingConfig(request);
  if (thinking?.budget !== undefined && forced) {
    // "Tool use with extended thinking only supports tool_choice auto or none."
    warn('thinking', 'Anthropic rejects thinking together with a forced tool (tool_choice any/tool): thinking was turned off for this request');
    thinking = undefined;
  } else if (thinking?.budget !== undefined && toolTurnWithoutThinking(messages)) {
    warn('thinking', 'The last assistant turn calls tools without a thinking block (another provider or no thinking began it), which Anthropic rejects with thinking on: thinking was turned off for this request');
    thinking = undefined;
  }
  const thinkingOn = thinking?.budget !== undefined;
  body.max_tokens = maxTokens(request, thinking?.budget);

  if (system.length > 0) body.system = system;
  body.messages = messages;

  const tools = (request.tools ?? []).map((tool) => {
    // Strict tool use needs closed objects, like structured outputs.
    const schema = tool.strict === true ? (closeObjectSchemas(inputSchema(tool.inputSchema)) as Json) : inputSchema(tool.inputSchema);
    const out: Json = { name: tool.name, input_schema: schema };
    if (tool.description) out.description = tool.description;
    if (tool.strict !== undefined) out.strict = tool.strict;
    return out;
  });
  if (tools.length === 0 && request.toolChoice !== undefined) warn('toolChoice', 'tool_choice was not sent: the request has no tools');
  if (tools.length > 0) {
    body.tools = tools;
    const choice = request.toolChoice;
    if (choice === 'auto') body.tool_choice = { type: 'auto' };
    else if (choice === 'none') body.tool_choice = { type: 'none' };
    else if (choice === 'required') body.tool_choice = { type: 'any' };
    else if (choice !== undefined) body.tool_choice = { type: 'tool', name: choice.name };
  }

  if (thinking) body.thinking = thinking.config;
  if (request.temperature !== undefined) {
    if (!thinkingOn) body.temperature = request.temperature;
    else warn('temperature', 'Anthropic does not take a temperature with thinking on: temperature was not sent');
  }
  if (request.topP !== undefined) {
    if (body.temperature !== undefined && samplingRules('anthropic', request.model, thinkingOn)?.temperatureOrTopP) {
      warn('topP', `${request.model} takes temperature or top_p, not both: top_p was not sent (temperature was)`);
    } else if (!thinkingOn || request.topP >= 0.95) body.top_p = request.topP;
    else warn('topP', 'Anthropic takes top_p between 0.95 and 1 with thinking on: top_p was not sent');
  }
  if (request.stop && request.stop.length > 0) body.stop_sequences = request.stop;

  if (request.output) {
    const schema = request.output.strict === false ? request.output.schema : closeObjectSchemas(request.output.schema);
    body.output_config = { format: { type: 'json_schema', schema } };
  }

  if (request.cache && request.cache.breakpoints !== false) {
    const cacheControl: Json = { type: 'ephemeral' };
    if (request.cache.ttl) cacheControl.ttl = request.cache.ttl;
    if (system.length > 0) markLastCacheable(system, cacheControl);
    if (tools.length > 0) tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: cacheControl };
    const last = messages[messages.length - 1];
    if (last) markLastCacheable(last.content, cacheControl);
  }

  // One JSON body when asked (https://docs.anthropic.com/en/api/messages: `stream` is optional, default false).
  body.stream = options.stream !== false;
  return request.extra ? { ...body, ...request.extra } : body;
}
