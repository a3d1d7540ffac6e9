/**
 * The OpenAI error body, shared by Chat Completions and Responses (and the many Chat
 * Completions-compatible servers): `{ error: { message, type, param, code } }`.
 * https://platform.openai.com/docs/guides/error-codes
 */
import type { ErrorCode } from '@parlance/protocol';
import { statusForCode, type EncodedHttpError, type ResponseError } from './response-encoding.ts';

const SHAPES: Partial<Record<ErrorCode, { type: string; code: string | null }>> = {
  invalid_request: { type: 'invalid_request_error', code: null },
  context_length_exceeded: { type: 'invalid_request_error', code: 'context_length_exceeded' },
  content_filter: { type: 'invalid_request_error', code: 'content_policy_violation' },
  authentication: { type: 'invalid_request_error', code: 'invalid_api_key' },
  // OpenAI answers a key or project without access to a model with 403 and `model_not_found`
  // ("Project `proj_...` does not have access to model `...`"), its one permission code that is
  // not about a region (`unsupported_country_region_territory` is a geographic block).
  permission: { type: 'invalid_request_error', code: 'model_not_found' },
  not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  rate_limited: { type: 'requests', code: 'rate_limit_exceeded' },
  overloaded: { type: 'server_error', code: 'server_is_overloaded' },
  timeout: { type: 'server_error', code: 'timeout' },
};

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: null; code: string | null };
}

export function openaiErrorBody(error: ResponseError): OpenAIErrorBody {
  const shape = SHAPES[error.code] ?? { type: 'server_error', code: 'server_error' };
  return { error: { message: error.message, type: shape.type, param: null, code: shape.code } };
}

export function openaiHttpError(error: ResponseError): EncodedHttpError {
  return {
    status: error.status ?? statusForCode(error.code),
    headers: { 'content-type': 'application/json', 'x-request-id': 'req_parlance' },
    body: JSON.stringify(openaiErrorBody(error)),
  };
}
