/**
 * Google's error payloads (Gemini, and Anthropic models served by Vertex AI): `{ "error": { "code": 429, "status": "RESOURCE_EXHAUSTED", "message": ... } }`,
 * the google.rpc.Status shape, sent as the body of a failed request and, rarely, as an
 * SSE event mid-stream. https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
import { errorCodeForStatus, type ErrorCode } from '@parlance/protocol';
import type { DecoderFailure } from '../types.ts';

const BY_STATUS: Record<string, ErrorCode> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'permission',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limited',
  UNAVAILABLE: 'overloaded',
  INTERNAL: 'server_error',
  DEADLINE_EXCEEDED: 'timeout',
};

export function googleRpcFailure(error: unknown): DecoderFailure {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; status?: unknown; message?: unknown };
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : 'The provider reported an error';
  const status = typeof e.code === 'number' ? e.code : undefined;
  let code: ErrorCode =
    (typeof e.status === 'string' && Object.hasOwn(BY_STATUS, e.status) ? BY_STATUS[e.status] : undefined) ?? (status !== undefined ? errorCodeForStatus(status) : 'unknown');
  // "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  if (code === 'invalid_request' && /token count.*exceeds|exceeds the maximum number of tokens|context (window|length)/i.test(message)) {
    code = 'context_length_exceeded';
  }
  const label = typeof e.status === 'string' ? `${e.status}: ` : '';
  const failure: DecoderFailure = { code, message: `${label}${message}` };
  if (status !== undefined) failure.status = status;
  return failure;
}
