/**
 * A request that carries a body must say it is JSON. A cross-site `<form>` or a "simple" `fetch`
 * can only send `text/plain`, `application/x-www-form-urlencoded` or `multipart/form-data` without
 * a CORS preflight, so requiring `application/json` keeps those out where `authorize` reads cookies.
 */
import { ParlanceError } from '@parlance/protocol';
import type { MiddlewareHandler } from 'hono';
import type { Refuse } from './origin.ts';

/**
 * Whether a request carries a body (a POST without one, like a cancel, declares `content-length: 0` or has none).
 * Read from the headers when they declare one (`content-length`, `transfer-encoding`), as HTTP/1.1 frames a
 * body: on Node, `@hono/node-server` builds a web `ReadableStream` (and a whole `Request`) the first time
 * `body` is read, and reads `text()` straight from the socket only when it was never built.
 */
export function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  if (length === '0') return false;
  if (length !== null || request.headers.has('transfer-encoding')) return true;
  return request.body !== null;
}

/** The 415 a body that is not `application/json` gets (undefined when it is, or when there is no body). */
export function checkJsonContentType(request: Request): ParlanceError | undefined {
  if (!hasBody(request)) return undefined;
  const type = request.headers.get('content-type') ?? '';
  const essence = type.split(';')[0]!.trim().toLowerCase();
  if (essence === 'application/json') return undefined;
  return new ParlanceError('invalid_request', 'The body must be sent as content-type: application/json', { status: 415, retryable: false });
}

/** Refuses (415 `invalid_request`) a body that is not sent as `application/json`. */
export function jsonContentType(refuse: Refuse): MiddlewareHandler {
  return async function contentType(c, next) {
    const refused = checkJsonContentType(c.req.raw);
    if (refused) return refuse(c, refused);
    await next();
  };
}

/**
 * Refuses (415 `invalid_request`) a request whose body is not sent as `application/octet-stream`,
 * or that has none: a file upload's bytes, never parsed.
 */
export function bytesContentType(refuse: Refuse): MiddlewareHandler {
  return async function contentType(c, next) {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/octet-stream' || !hasBody(c.req.raw)) {
      return refuse(c, new ParlanceError('invalid_request', "A file's bytes must be sent as content-type: application/octet-stream", { status: 415, retryable: false }));
    }
    await next();
  };
}
