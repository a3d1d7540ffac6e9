/**
 * An HTTP error response -> a ParlanceError with a stable code and the provider's own
 * message. Every provider wraps its message differently; one reader covers them all:
 * - OpenAI and compatibles: `{ error: { message, type, code } }`
 *   https://platform.openai.com/docs/guides/error-codes
 * - Anthropic: `{ type: 'error', error: { type, message } }` https://docs.anthropic.com/en/api/errors
 * - Gemini (google.rpc.Status, sometimes inside an array): `{ error: { code, message, status, details } }`
 *   https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * - OpenRouter: `{ error: { code, message, metadata } }` https://openrouter.ai/docs/api-reference/errors
 * - Ollama: `{ error: '...' }` https://github.com/ollama/ollama/blob/main/docs/api.md#errors
 * - Mistral and FastAPI servers (vLLM): `{ message }`, `{ detail }` or `{ detail: [{ msg }] }`
 */
import { ParlanceError, errorCodeForStatus, type ErrorCode } from '@parlance/protocol';
import { redact } from './redact.ts';
import { sanitizeErrorText } from './sanitize-error.ts';

/**
 * What a provider's error body says, as far as it could be read.
 *
 * @example
 * const info: ProviderErrorInfo = { message: 'Overloaded', type: 'overloaded_error' };
 */
export interface ProviderErrorInfo {
  message?: string;
  /** The provider's machine-readable type or code ('overloaded_error', 'insufficient_quota', 'RESOURCE_EXHAUSTED'). */
  type?: string;
  /** A code the provider's body implies, overriding the one from the status. */
  code?: ErrorCode;
  /** False when the body says trying again cannot help (OpenAI's `insufficient_quota` 429). */
  retryable?: boolean;
}

/**
 * Reads a provider's error body when the shared reader is not enough.
 *
 * @example
 * const parseError: ErrorBodyParser = (status, body) => ({ message: JSON.parse(body).detail });
 */
export type ErrorBodyParser = (status: number, body: string) => ProviderErrorInfo | undefined;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Reads the message and type out of any of the shapes above. */
export function readErrorBody(body: string): ProviderErrorInfo {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const text = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
    return text ? { message: text.slice(0, 500) } : {};
  }
  if (Array.isArray(json)) json = json[0];
  const root = record(json);
  if (!root) return {};
  const error = record(root.error);
  const info: ProviderErrorInfo = {};
  const message =
    str(error?.message) ??
    str(root.error) ??
    str(root.message) ??
    str(root.detail) ??
    (Array.isArray(root.detail) ? str(record(root.detail[0])?.msg) : undefined);
  if (message) info.message = message;
  const reasons = Array.isArray(error?.details)
    ? error.details.map((d) => str(record(d)?.reason)).filter((r): r is string => r !== undefined)
    : [];
  const type = reasons[0] ?? str(error?.code) ?? str(error?.type) ?? str(error?.status) ?? str(root.code) ?? str(root.type);
  if (type) info.type = type;
  return info;
}

const BY_TYPE: Record<string, ErrorCode> = {
  // Anthropic https://docs.anthropic.com/en/api/errors
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  request_too_large: 'invalid_request',
  rate_limit_error: 'rate_limited',
  api_error: 'server_error',
  overloaded_error: 'overloaded',
  // OpenAI https://platform.openai.com/docs/guides/error-codes
  invalid_api_key: 'authentication',
  context_length_exceeded: 'context_length_exceeded',
  string_above_max_length: 'context_length_exceeded',
  insufficient_quota: 'rate_limited',
  rate_limit_exceeded: 'rate_limited',
  content_filter: 'content_filter',
  content_policy_violation: 'content_filter',
  model_not_found: 'not_found',
  // Google https://cloud.google.com/apis/design/errors#handling_errors
  API_KEY_INVALID: 'authentication',
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'permission',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limited',
  UNAVAILABLE: 'overloaded',
  DEADLINE_EXCEEDED: 'timeout',
};

const CONTEXT_LENGTH = /context[ _-]?(length|window)|maximum context|prompt is too long|too many (input )?tokens|input.{0,20}exceeds.{0,40}(limit|maximum)/i;

/** Refines the status code with what the body says. */
export function classifyError(status: number, info: ProviderErrorInfo): { code: ErrorCode; retryable?: boolean } {
  if (info.code) return info.retryable === undefined ? { code: info.code } : { code: info.code, retryable: info.retryable };
  const byType = info.type ? BY_TYPE[info.type] : undefined;
  let code: ErrorCode = errorCodeForStatus(status);
  if (byType && (byType !== 'invalid_request' || code === 'unknown')) code = byType;
  if ((code === 'invalid_request' || code === 'unknown') && info.message && CONTEXT_LENGTH.test(info.message)) {
    code = 'context_length_exceeded';
  }
  // A spent quota answers 429 but will not recover by waiting.
  if (info.type === 'insufficient_quota') return { code, retryable: false };
  if (info.retryable !== undefined) return { code, retryable: info.retryable };
  return { code };
}

export interface HttpErrorInput {
  status: number;
  statusText?: string;
  body: string;
  providerName: string;
  retryAfterMs?: number | undefined;
  parse?: ErrorBodyParser | undefined;
  secrets?: readonly (string | undefined)[];
  retryableStatus: boolean;
}

export function httpError(input: HttpErrorInput): ParlanceError {
  const info = { ...readErrorBody(input.body), ...input.parse?.(input.status, input.body) };
  const { code, retryable } = classifyError(input.status, info);
  // The body is the upstream's: echoed headers, internal URLs and hosts stay on the server.
  const detail = sanitizeErrorText(info.message ?? (input.statusText || 'no message'));
  const message = redact(`${input.providerName} returned HTTP ${input.status}: ${detail}`, input.secrets ?? []);
  const options: ConstructorParameters<typeof ParlanceError>[2] = {
    status: input.status,
    retryable: retryable ?? (input.retryableStatus || undefined),
  };
  if (options.retryable === undefined) delete options.retryable;
  if (input.retryAfterMs !== undefined) options.retryAfterMs = input.retryAfterMs;
  return new ParlanceError(code, message, options);
}
