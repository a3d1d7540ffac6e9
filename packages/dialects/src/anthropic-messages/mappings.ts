/**
 * Anthropic's words mapped to the protocol's: stop reasons, error types, usage, and
 * the shape of what this dialect keeps in `providerState` for round trips.
 */
import type { ErrorCode, FinishReason, ProviderState, Usage } from '@parlance/protocol';

/**
 * The key this dialect keeps its provider state under (`providerState.anthropic_messages`).
 *
 * @example
 * const state = message.providerState?.[DIALECT_KEY];
 */
export const DIALECT_KEY = 'anthropic_messages';

/**
 * What a part carries under `providerState.anthropic_messages` (all optional):
 * - thinking: `signature` (also on the part's `signature`);
 * - redacted_thinking: `redactedData` (the opaque `data` to send back verbatim);
 * - compaction: `type: 'compaction'`, `encryptedContent`;
 * - server tools: `type: 'server_tool_use' | 'mcp_tool_use'` on the call, the result
 *   block's `type` (e.g. `web_search_tool_result`) on the result; `serverName` for MCP;
 * - tool_use: `caller` when the call was not made directly (programmatic tool calling).
 *
 * @example
 * const signature = (part.providerState?.anthropic_messages as AnthropicState | undefined)?.signature;
 */
export interface AnthropicState {
  signature?: string;
  redactedData?: string;
  type?: string;
  encryptedContent?: string;
  serverName?: string;
  caller?: unknown;
}

export function anthropicState(providerState: ProviderState | undefined): AnthropicState | undefined {
  const value = providerState?.[DIALECT_KEY];
  return typeof value === 'object' && value !== null ? (value as AnthropicState) : undefined;
}

export function withAnthropicState(state: AnthropicState): ProviderState {
  return { [DIALECT_KEY]: state };
}

/**
 * Stop reasons: https://docs.anthropic.com/en/api/messages#response-stop-reason and
 * https://docs.anthropic.com/en/docs/build-with-claude/handling-stop-reasons
 * `compaction` (beta: the server paused after compacting, `pause_after_compaction`) is a pause too.
 */
export function finishReasonOf(raw: string): FinishReason {
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'pause_turn':
    case 'compaction':
      return 'pause';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}

/**
 * Error types: https://docs.anthropic.com/en/api/errors (the same `{type:'error', error:{type, message}}`
 * arrives as an SSE `error` event mid-stream, e.g. `overloaded_error`).
 */
export function errorCodeOf(type: string | undefined, message: string): ErrorCode {
  switch (type) {
    case 'invalid_request_error':
    case 'request_too_large':
      return /prompt is too long|context (window|length)|too many (total )?tokens/i.test(message)
        ? 'context_length_exceeded'
        : 'invalid_request';
    case 'authentication_error':
      return 'authentication';
    case 'permission_error':
    case 'billing_error':
      return 'permission';
    case 'not_found_error':
      return 'not_found';
    case 'rate_limit_error':
      return 'rate_limited';
    case 'overloaded_error':
      return 'overloaded';
    case 'api_error':
      return 'server_error';
    case 'timeout_error':
      return 'timeout';
    default:
      return 'unknown';
  }
}

/** Anthropic's raw counts, overlaid report by report (message_start, then each message_delta). */
export interface RawUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  thinking?: number;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Reads one usage object. Usage reference: https://docs.anthropic.com/en/api/messages#response-usage
 * With compaction (beta), the top-level counts cover only the last sampling iteration and
 * `usage.iterations` lists every iteration (the compaction summary included), all billed:
 * https://docs.anthropic.com/en/docs/build-with-claude/compaction. We report the sum of the
 * iterations then, so usage matches what the request consumed.
 */
export function readUsage(value: unknown): RawUsage {
  if (typeof value !== 'object' || value === null) return {};
  const usage = value as Record<string, unknown>;
  const out: RawUsage = {};
  const iterations = Array.isArray(usage.iterations) ? (usage.iterations as unknown[]) : undefined;
  if (iterations && iterations.length > 0) {
    for (const item of iterations) {
      const it = readUsage(typeof item === 'object' && item !== null ? { ...item, iterations: undefined } : undefined);
      for (const key of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
        if (it[key] !== undefined) out[key] = (out[key] ?? 0) + it[key];
      }
    }
  } else {
    const input = count(usage.input_tokens);
    const output = count(usage.output_tokens);
    const cacheRead = count(usage.cache_read_input_tokens);
    const cacheWrite = count(usage.cache_creation_input_tokens);
    if (input !== undefined) out.input = input;
    if (output !== undefined) out.output = output;
    if (cacheRead !== undefined) out.cacheRead = cacheRead;
    if (cacheWrite !== undefined) out.cacheWrite = cacheWrite;
  }
  const details = usage.output_tokens_details;
  if (typeof details === 'object' && details !== null) {
    const thinking = count((details as Record<string, unknown>).thinking_tokens);
    if (thinking !== undefined) out.thinking = thinking;
  }
  return out;
}

export function mergeRawUsage(base: RawUsage, update: RawUsage): RawUsage {
  const out = { ...base };
  for (const key of ['input', 'output', 'cacheRead', 'cacheWrite', 'thinking'] as const) {
    if (update[key] !== undefined) out[key] = update[key];
  }
  return out;
}

/**
 * Anthropic's `input_tokens` counts only the tokens after the last cache breakpoint; cache
 * reads and writes are reported beside it ("total input tokens is the summation of
 * input_tokens, cache_creation_input_tokens and cache_read_input_tokens"). The protocol's
 * `inputTokens` is the total, so it is that sum (over the counts reported; a count never
 * reported is not invented). `totalTokens` is not reported by Anthropic and stays undefined.
 */
export function toUsage(raw: RawUsage): Usage {
  const usage: Usage = {};
  if (raw.input !== undefined || raw.cacheRead !== undefined || raw.cacheWrite !== undefined) {
    usage.inputTokens = (raw.input ?? 0) + (raw.cacheRead ?? 0) + (raw.cacheWrite ?? 0);
  }
  if (raw.output !== undefined) usage.outputTokens = raw.output;
  if (raw.cacheRead !== undefined) usage.cacheReadTokens = raw.cacheRead;
  if (raw.cacheWrite !== undefined) usage.cacheWriteTokens = raw.cacheWrite;
  if (raw.thinking !== undefined) usage.reasoningTokens = raw.thinking;
  return usage;
}
