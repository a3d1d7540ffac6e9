/**
 * Checks at the edge, before a body is parsed or a run starts: what a cross-site form or a
 * hostile client could send that JSON.parse and zod would take.
 */
import { ParlanceError } from '@parlance/protocol';

/**
 * Who may send state-changing requests (POST) from a browser, besides the server's own origin:
 * `'*'` (anyone), a list of origins, or a predicate. See `ParlanceServerOptions.allowedOrigins`.
 *
 * @example
 * ```ts
 * createParlanceApp({ models, run, authorize, allowedOrigins: ['https://app.example.com'] });
 * ```
 */
export type AllowedOrigins = '*' | readonly string[] | ((origin: string) => boolean);

/**
 * A POST body must say it is JSON. A cross-site `<form>` or a "simple" `fetch` can only send
 * `text/plain`, `application/x-www-form-urlencoded` or `multipart/form-data` without a CORS
 * preflight, so requiring `application/json` keeps those out where `authorize` reads cookies.
 */
export function checkJsonContentType(request: Request): ParlanceError | undefined {
  const type = request.headers.get('content-type') ?? '';
  const essence = type.split(';')[0]!.trim().toLowerCase();
  if (essence === 'application/json') return undefined;
  return new ParlanceError('invalid_request', 'The body must be sent as content-type: application/json', { status: 415, retryable: false });
}

/**
 * The request's `Origin` must be the server's own or one allowed. A request without `Origin`
 * comes from a non-browser client (browsers send it on every cross-origin and every POST
 * request), which a cross-site page cannot make.
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

/**
 * Whether JSON text nests deeper than `max` arrays and objects, read in one pass without
 * parsing (a body nested 5,000 deep parses fine, then overflows the stack of whatever walks it).
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}
