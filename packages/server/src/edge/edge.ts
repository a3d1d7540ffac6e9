/**
 * One edge in front of every route: the guards composed once, in this order, and passed as the
 * first handler of each route of every family (chat, runs, models, the gateway's five caller
 * formats, the AI SDK and AG-UI frontends): Origin, the caller (`authorize`, then the rate
 * limit), content type, Hono's `bodyLimit`, then the JSON body (depth, parse). Each family gives
 * its own `refuse`, so a refusal is in the format its callers read (the gateway's in the caller's
 * provider format). Mounted per route rather than with `use('*')`: an app mounted at `/` beside
 * others must not put its guards in front of their routes.
 */
import { ParlanceError } from '@parlance/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { every } from 'hono/combine';
import { authorization, type RateLimitCheck, rateLimiting, type ResolveCaller } from './caller.ts';
import { jsonBody } from './json-body.ts';
import { bytesContentType, jsonContentType } from './json-content-type.ts';
import { type AllowedOrigins, originGuard, type Refuse } from './origin.ts';

export interface EdgeOptions<P> {
  allowedOrigins: AllowedOrigins;
  /** Request bodies larger than this are refused with 413. */
  maxBodyBytes: number;
  /** Arrays and objects in a body may nest this deep; deeper is a 400. */
  maxJsonDepth: number;
  authorize: ResolveCaller<P>;
  rateLimit?: RateLimitCheck<P> | undefined;
  refuse: Refuse;
}

/** The guards of one route family as one middleware. */
export function createEdge<P>(options: EdgeOptions<P>): MiddlewareHandler {
  const { refuse } = options;
  return every(...callerGuards(options), jsonContentType(refuse), sizeLimit(options.maxBodyBytes, refuse), jsonBody(options.maxJsonDepth, refuse));
}

/**
 * The same edge for a route whose body is a file's bytes (`POST /files`): Origin, the caller and
 * the rate limit as everywhere, then the body must be `application/octet-stream` (like JSON, a
 * type a cross-site form cannot send without a CORS preflight) and at most `maxBodyBytes` (the
 * file limit), declared or streamed. It is not parsed.
 */
export function createBytesEdge<P>(options: Omit<EdgeOptions<P>, 'maxJsonDepth'>): MiddlewareHandler {
  const { refuse } = options;
  return every(...callerGuards(options), bytesContentType(refuse), sizeLimit(options.maxBodyBytes, refuse));
}

function callerGuards<P>(options: Omit<EdgeOptions<P>, 'maxJsonDepth' | 'maxBodyBytes'>): MiddlewareHandler[] {
  const guards: MiddlewareHandler[] = [originGuard(options.allowedOrigins, options.refuse), authorization(options.authorize)];
  if (options.rateLimit) guards.push(rateLimiting(options.rateLimit));
  return guards;
}

/**
 * Hono's `bodyLimit`, except that a declared `content-length` (without `transfer-encoding`, the case
 * `bodyLimit` also settles from the header alone) is checked without touching `body`: on Node that
 * would build a web stream for a body `jsonBody` then reads straight from the socket (`hasBody`).
 * A body sent without a length is counted as it streams, by `bodyLimit`.
 */
function sizeLimit(maxSize: number, refuse: Refuse): MiddlewareHandler {
  const tooLarge = (c: Context) => refuse(c, new ParlanceError('invalid_request', `The request body is larger than ${maxSize} bytes`, { status: 413, retryable: false }));
  const streamed = bodyLimit({ maxSize, onError: tooLarge });
  return async function declaredSize(c, next) {
    const { headers } = c.req.raw;
    const length = headers.get('content-length');
    if (length === null || headers.has('transfer-encoding')) return streamed(c, next);
    if (Number.parseInt(length, 10) > maxSize) return tooLarge(c);
    await next();
  };
}
