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
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { every } from 'hono/combine';
import { authorization, type RateLimitCheck, rateLimiting, type ResolveCaller } from './caller.ts';
import { jsonBody } from './json-body.ts';
import { jsonContentType } from './json-content-type.ts';
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
  const { refuse, maxBodyBytes } = options;
  const guards: MiddlewareHandler[] = [originGuard(options.allowedOrigins, refuse), authorization(options.authorize)];
  if (options.rateLimit) guards.push(rateLimiting(options.rateLimit));
  guards.push(
    jsonContentType(refuse),
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => refuse(c, new ParlanceError('invalid_request', `The request body is larger than ${maxBodyBytes} bytes`, { status: 413, retryable: false })),
    }),
    jsonBody(options.maxJsonDepth, refuse),
  );
  return every(...guards);
}
