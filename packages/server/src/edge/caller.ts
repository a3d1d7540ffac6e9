/**
 * Who is asking, settled at the edge: `authorize` names the principal (or refuses), then the
 * rate limit may refuse it. Routes read the principal with `principalOf(c)`.
 */
import type { Context, MiddlewareHandler } from 'hono';

const PRINCIPAL = 'parlance.principal';

/** Resolves the caller: its principal (possibly undefined, with no `authorize`), or a Response that refuses it. */
export type ResolveCaller<P> = (c: Context) => Promise<{ principal: P } | Response>;

/** A rate limit: a Response refuses the request, undefined lets it through. */
export type RateLimitCheck<P> = (principal: P, c: Context) => Promise<Response | undefined>;

/** Sets the caller's principal, or answers with the refusal `resolve` gives. */
export function authorization<P>(resolve: ResolveCaller<P>): MiddlewareHandler {
  return async function authorize(c, next) {
    const caller = await resolve(c);
    if (caller instanceof Response) return caller;
    c.set(PRINCIPAL as never, caller.principal as never);
    await next();
  };
}

/** Lets the rate limit refuse the principal `authorization` set. */
export function rateLimiting<P>(check: RateLimitCheck<P>): MiddlewareHandler {
  return async function rateLimit(c, next) {
    const refused = await check(principalOf<P>(c), c);
    if (refused) return refused;
    await next();
  };
}

/** The principal the edge let in (undefined without `authorize`). */
export function principalOf<P>(c: Context): P {
  return c.get(PRINCIPAL as never) as P;
}
