/**
 * Provider calls never follow a redirect. One is unexpected of an API, and following it would send the request's
 * credentials on: the Fetch standard drops only `Authorization` when a redirect leaves the origin, so `x-api-key`
 * (Anthropic), `x-goog-api-key` (Gemini), `api-key` (Azure), a proxy's headers, and a body that carries one (a 307
 * or 308 sends the body again: Vertex's signed token assertion) would reach the other address. Fetch is told
 * 'error' (which also spares Node's fetch a copy of every request body: undici clones, by teeing its body, a
 * request it may have to send again, ~50 µs a call); Workers take only 'follow' and 'manual', so there it is
 * 'manual', and the 3xx answer is then refused the same way (`isRedirectStatus`).
 */
export const NO_REDIRECT: 'error' | 'manual' =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers' ? 'manual' : 'error';

/** Whether fetch failed because the answer was a redirect it was told not to follow (undici: "unexpected redirect"). */
export function isRedirectFailure(error: unknown): boolean {
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  return cause instanceof Error && cause.message === 'unexpected redirect';
}

/** A 3xx answer: what fetch hands back under 'manual', or a 3xx that names no address. */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status < 400;
}
