/**
 * The Origin check: a browser's request must come from the server's own origin or one allowed,
 * so a cross-site page cannot use the cookies `authorize` reads. One concern, as Hono's own
 * middleware: `originGuard(allowed, refuse)`.
 */
import { ParlanceError } from '@parlance/protocol';
import type { Context, MiddlewareHandler } from 'hono';

/**
 * Who may send requests from a browser, besides the server's own origin: `'*'` (anyone), a
 * list of origins, or a predicate. See `ParlanceServerOptions.allowedOrigins`.
 *
 * @example
 * ```ts
 * createParlanceApp({ models, run, authorize, allowedOrigins: ['https://app.example.com'] });
 * ```
 */
export type AllowedOrigins = '*' | readonly string[] | ((origin: string) => boolean);

/** How a guard answers a refusal: the route family's error format (the gateway answers in the caller's). */
export type Refuse = (c: Context, error: ParlanceError) => Response;

/**
 * The request's `Origin` must be the server's own or one allowed. A request without `Origin`
 * comes from a non-browser client (browsers send it on every cross-origin request and every
 * POST), which a cross-site page cannot make; a same-origin GET sends none either.
 */
export function checkOrigin(request: Request, allowed: AllowedOrigins): ParlanceError | undefined {
  if (allowed === '*') return undefined;
  const origin = request.headers.get('origin');
  if (origin === null) return undefined;
  if (origin !== 'null' && origin === new URL(request.url).origin) return undefined;
  const ok = typeof allowed === 'function' ? allowed(origin) : allowed.includes(origin);
  if (ok) return undefined;
  return new ParlanceError('permission', `Requests from origin ${JSON.stringify(origin).slice(0, 200)} are not allowed`, { status: 403, retryable: false });
}

/** Refuses (403 `permission`) a request whose `Origin` is not allowed. */
export function originGuard(allowed: AllowedOrigins, refuse: Refuse): MiddlewareHandler {
  return async function origin(c, next) {
    const refused = checkOrigin(c.req.raw, allowed);
    if (refused) return refuse(c, refused);
    await next();
  };
}
