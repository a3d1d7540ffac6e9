/**
 * The server's error answers: `{ error: { code, message, issues? } }` with the HTTP status, for
 * a refusal, a route that does not exist, and an unexpected error (never its stack or details).
 */
import { type ErrorCode, type ErrorResponseBody, ParlanceError } from '@parlance/protocol';
import type { Context } from 'hono';
import type { ErrorContext } from './server-options.ts';

/** An error answer: `{ error: { code, message, issues? } }` with `status`. */
export function errorResponse(status: number, code: ErrorCode, message: string, issues?: unknown[]): Response {
  const body: ErrorResponseBody = { error: { code, message } };
  if (issues !== undefined) body.error.issues = issues;
  return Response.json(body, { status });
}

/** A typed refusal as an answer (its status, default 400). */
export function refusal(error: ParlanceError, issues?: unknown[]): Response {
  return errorResponse(error.status ?? 400, error.code, error.message, issues);
}

/** A typed refusal (e.g. a body `parseRequestJson` refused), with the path of the bad value as an issue when there is one. */
export function jsonRefusal(error: unknown): Response {
  const e = ParlanceError.from(error, 'invalid_request');
  return refusal(e, e.path?.length ? [{ path: e.path, message: e.message }] : undefined);
}

/** The 404 of a path no route serves. */
export function notFoundResponse(): Response {
  return errorResponse(404, 'not_found', 'No such route');
}

/**
 * The answer to an error a route threw: a typed one's code and message, anything else a generic
 * 500. What the client is not told (an unexpected error, or the cause behind a typed one) goes to `report`.
 */
export function errorHandler(report: (error: unknown, context: ErrorContext) => void): (error: Error, c: Context) => Response {
  return (error, c) => {
    const e = ParlanceError.isInstance(error) ? error : undefined;
    const status = e?.status ?? 500;
    if (!e || e.cause !== undefined) report(error, { request: c.req.raw });
    const response = errorResponse(status, e?.code ?? 'server_error', e ? e.message : 'Internal error');
    if (e?.retryAfterMs !== undefined) response.headers.set('Retry-After', String(Math.ceil(e.retryAfterMs / 1000)));
    return response;
  };
}
