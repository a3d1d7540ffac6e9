/**
 * Provider error codes (an `error` stream event's `code`, or `response.error.code` of
 * `response.failed`) to the protocol's codes.
 * Stream error event: https://platform.openai.com/docs/api-reference/responses-streaming/error
 * ResponseError codes: https://platform.openai.com/docs/api-reference/responses/object#responses/object-error
 * Error codes: https://platform.openai.com/docs/guides/error-codes
 */
import type { ErrorCode } from '@parlance/protocol';
import type { DecoderFailure } from '../types.ts';

const CODES: Record<string, ErrorCode> = {
  rate_limit_exceeded: 'rate_limited',
  // A billing limit, answered with 429 like a rate limit but not worth retrying (see below).
  insufficient_quota: 'rate_limited',
  server_error: 'server_error',
  internal_error: 'server_error',
  server_is_overloaded: 'overloaded',
  overloaded: 'overloaded',
  slow_down: 'overloaded',
  context_length_exceeded: 'context_length_exceeded',
  string_above_max_length: 'context_length_exceeded',
  // "Invalid prompt: your prompt was flagged as potentially violating our usage policy."
  invalid_prompt: 'content_filter',
  content_policy_violation: 'content_filter',
  content_filter: 'content_filter',
  image_content_policy_violation: 'content_filter',
  bio_policy: 'content_filter',
  cyber_policy: 'content_filter',
  vector_store_timeout: 'timeout',
  invalid_api_key: 'authentication',
  model_not_found: 'not_found',
  invalid_request_error: 'invalid_request',
  data_residency_mismatch: 'invalid_request',
};

/** Error `type`s (the older envelope: `{type: 'invalid_request_error', code: null}`). */
const TYPES: Record<string, ErrorCode> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  rate_limit_error: 'rate_limited',
  server_error: 'server_error',
  overloaded_error: 'overloaded',
};

const NOT_RETRYABLE = new Set(['insufficient_quota']);

export function errorCodeFor(code: unknown, type?: unknown): ErrorCode {
  if (typeof code === 'string') {
    const known = CODES[code];
    if (known) return known;
    // The image input codes (invalid_image, image_too_large, invalid_base64_image, ...) are all request problems.
    if (code.startsWith('invalid_') || code.includes('image')) return 'invalid_request';
  }
  if (typeof type === 'string' && TYPES[type]) return TYPES[type];
  return 'unknown';
}

/**
 * Reads `{code, message, type?}` (the `error` event itself, `response.error`, or a
 * nested `{error: {...}}` some compatible servers send) into a decoder failure.
 */
export function failureFrom(payload: unknown, fallbackMessage: string): DecoderFailure {
  let source = (payload ?? {}) as Record<string, unknown>;
  if (source.error && typeof source.error === 'object') source = source.error as Record<string, unknown>;
  const code = errorCodeFor(source.code, source.type);
  const message = typeof source.message === 'string' && source.message !== '' ? source.message : fallbackMessage;
  const raw = typeof source.code === 'string' ? source.code : undefined;
  const failure: DecoderFailure = { code, message: raw && !message.includes(raw) ? `${message} (${raw})` : message };
  if (raw && NOT_RETRYABLE.has(raw)) failure.retryable = false;
  return failure;
}
