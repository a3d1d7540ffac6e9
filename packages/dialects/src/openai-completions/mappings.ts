/**
 * Chat Completions wire values to protocol values: finish reasons, usage, error
 * payloads. Shared by the decoder and its tests.
 *
 * Chunk object: https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
import { type ErrorCode, errorCodeForStatus, type FinishReason, type Usage } from '@parlance/protocol';

/** The key of this dialect's providerState. */
export const DIALECT_ID = 'openai_completions';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * `finish_reason` of a choice. OpenAI documents stop, length, tool_calls,
 * content_filter and the deprecated function_call
 * (https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices).
 * Others seen in compatible APIs: Z.ai `sensitive` (content filter) and
 * `network_error` (https://docs.z.ai/api-reference/llm/chat-completion), Mistral
 * `model_length` (https://docs.mistral.ai/api/#tag/chat), OpenRouter `error`
 * (https://openrouter.ai/docs/api-reference/streaming), DeepSeek
 * `insufficient_system_resource` (the generation was cut because the service ran out
 * of capacity: https://api-docs.deepseek.com/api/create-chat-completion). Anything
 * else is 'other' with the raw value kept beside it.
 *
 * @example
 * mapFinishReason('tool_calls'); // 'tool-calls'
 */
export function mapFinishReason(raw: string): FinishReason {
  switch (raw) {
    case 'stop':
    case 'eos':
    case 'end_turn':
      return 'stop';
    case 'length':
    case 'max_tokens':
    case 'model_length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
    case 'sensitive':
      return 'content-filter';
    case 'error':
    case 'network_error':
    case 'insufficient_system_resource':
      return 'error';
    default:
      return 'other';
  }
}

/**
 * The `usage` object (https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage).
 * `inputTokens` is `prompt_tokens`, which already counts cached tokens for OpenAI,
 * OpenRouter, DeepSeek, Moonshot, Z.ai, Groq and Alibaba (cached tokens are a
 * subset, reported apart). Cached tokens come as `prompt_tokens_details.cached_tokens`
 * (OpenAI and most), `prompt_cache_hit_tokens` (DeepSeek,
 * https://api-docs.deepseek.com/api/create-chat-completion) or a top-level
 * `cached_tokens` (Moonshot, https://platform.moonshot.ai/docs/api/chat).
 * `prompt_tokens_details.cache_write_tokens` and the numeric `cost` (in credits,
 * i.e. US dollars) are OpenRouter's (https://openrouter.ai/docs/use-cases/usage-accounting).
 * Groq's extra timings (`queue_time`, ...) are ignored. A field not sent stays undefined.
 *
 * @example
 * mapUsage({ prompt_tokens: 12, completion_tokens: 40 }); // { inputTokens: 12, outputTokens: 40, ... }
 */
export function mapUsage(raw: unknown): Usage | undefined {
  if (!isObject(raw)) return undefined;
  const prompt = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completion = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  const usage: Usage = {};
  const input = count(raw.prompt_tokens);
  const output = count(raw.completion_tokens);
  const total = count(raw.total_tokens);
  const cacheRead = count(prompt.cached_tokens) ?? count(raw.prompt_cache_hit_tokens) ?? count(raw.cached_tokens);
  const cacheWrite = count(prompt.cache_write_tokens);
  const reasoning = count(completion.reasoning_tokens);
  const cost = count(raw.cost);
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  if (cacheRead !== undefined) usage.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  if (total !== undefined) usage.totalTokens = total;
  if (cost !== undefined) usage.cost = cost;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** The error code of a finish_reason that means the generation failed (mapFinishReason gave 'error'). */
export function finishErrorCode(raw: string): ErrorCode {
  return raw === 'insufficient_system_resource' ? 'overloaded' : 'server_error';
}

const CODE_WORDS: [RegExp, ErrorCode][] = [
  [/context_length|context_window|too_many_tokens|maximum context/, 'context_length_exceeded'],
  [/rate_limit|too_many_requests|quota/, 'rate_limited'],
  [/overload|unavailable|capacity/, 'overloaded'],
  [/content_filter|content_policy|moderation|safety|sensitive/, 'content_filter'],
  [/authentication|invalid_api_key|unauthorized/, 'authentication'],
  [/permission|forbidden/, 'permission'],
  [/not_found/, 'not_found'],
  [/timeout|timed_out/, 'timeout'],
  [/invalid_request|bad_request|invalid_argument/, 'invalid_request'],
  [/server_error|internal|api_error/, 'server_error'],
];

/** How vLLM, llama.cpp and others word a prompt that does not fit, when no code says so. */
const CONTEXT_MESSAGE = /maximum context length|context length|context size|context window/i;

export interface ProviderError {
  code: ErrorCode;
  message: string;
  status?: number;
}

/**
 * An error payload sent inside the stream: `{"error": {message, type, code, param}}`
 * from OpenAI and vLLM (https://platform.openai.com/docs/guides/error-codes), the same
 * shape after `event: error` from Groq (https://console.groq.com/docs/errors), and
 * OpenRouter's `{"error": {code: <HTTP status>, message, metadata}}`
 * (https://openrouter.ai/docs/api-reference/errors), vLLM's older top-level
 * `{"object": "error", message, type, code}` (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html)
 * and a bare `{"error": "message"}`. The code is read from `type` and `code` words
 * first (a message about the context length refines `invalid_request`), then from
 * a numeric HTTP status; an error the provider raised mid-stream without a recognisable code is a
 * `server_error`.
 *
 * @example
 * const { code, message } = mapProviderError(await response.json());
 */
export function mapProviderError(payload: unknown): ProviderError {
  const error = isObject(payload) && isObject(payload.error) ? payload.error : isObject(payload) ? payload : {};
  const bare = isObject(payload) && typeof payload.error === 'string' && payload.error !== '' ? payload.error : undefined;
  const message =
    typeof error.message === 'string' && error.message !== ''
      ? error.message
      : (bare ?? (typeof payload === 'string' && payload !== '' ? payload : 'The provider reported an error in the stream'));
  const status = count(error.code) ?? count(error.status) ?? count(error.status_code);
  const words = [error.type, error.code, error.status].filter((v) => typeof v === 'string').join(' ').toLowerCase();
  let code: ErrorCode | undefined;
  for (const [pattern, mapped] of CODE_WORDS) {
    if (pattern.test(words)) {
      code = mapped;
      break;
    }
  }
  // `invalid_request_error` is also what a too-long prompt is typed as (vLLM, llama.cpp): the message says which.
  if ((code === undefined || code === 'invalid_request') && CONTEXT_MESSAGE.test(message)) code = 'context_length_exceeded';
  if (code === undefined && status !== undefined) {
    const byStatus = errorCodeForStatus(status);
    if (byStatus !== 'unknown') code = byStatus;
  }
  const out: ProviderError = { code: code ?? 'server_error', message };
  if (status !== undefined && status >= 400 && status < 600) out.status = status;
  return out;
}
