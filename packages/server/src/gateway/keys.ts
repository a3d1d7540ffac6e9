/**
 * Gateway keys: what a caller's SDK sends (`Authorization: Bearer`, `x-api-key`,
 * `x-goog-api-key`, or Gemini's `?key=`), and a ready `authorize` hook for a static key table.
 * Provider keys never come from callers: they stay in the server's environment.
 */

/**
 * A caller: whom a gateway key belongs to, what it may use, how fast.
 *
 * @example
 * ```ts
 * const principal: GatewayPrincipal = { id: 'team-a', models: ['fast'], rateLimit: { requests: 60, windowMs: 60_000 } };
 * ```
 */
export interface GatewayPrincipal {
  /** Stable id for usage reports and rate limits. */
  id: string;
  /** Model names this key may use (default: every route). */
  models?: readonly string[];
  /** At most `requests` per `windowMs` (default: no limit). */
  rateLimit?: { requests: number; windowMs: number };
  [key: string]: unknown;
}

/**
 * The key a caller's SDK sent, whichever header its SDK uses.
 *
 * @example
 * ```ts
 * gatewayKeyOf(new Request('http://gw/v1/messages', { headers: { 'x-api-key': 'sk-1' } })); // 'sk-1'
 * ```
 */
export function gatewayKeyOf(request: Request): string | undefined {
  const authorization = request.headers.get('authorization');
  if (authorization && /^bearer\s+/i.test(authorization)) return authorization.replace(/^bearer\s+/i, '').trim() || undefined;
  const header = request.headers.get('x-api-key') ?? request.headers.get('x-goog-api-key');
  if (header) return header.trim() || undefined;
  return new URL(request.url).searchParams.get('key') ?? undefined;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * An `authorize` hook for a fixed table of keys. Keys are compared by their SHA-256, so a
 * lookup's time does not depend on how much of a guess matches.
 *
 * @example
 * ```ts
 * createGateway({
 *   routes: { fast: 'openai:gpt-5-mini' },
 *   authorize: staticKeys({ 'sk-team-a': { id: 'team-a', models: ['fast'], rateLimit: { requests: 60, windowMs: 60_000 } } }),
 * });
 * ```
 */
export function staticKeys(keys: Record<string, GatewayPrincipal>): (key: string | undefined) => Promise<GatewayPrincipal | undefined> {
  let table: Map<string, GatewayPrincipal> | undefined;
  return async (key) => {
    if (key === undefined) return undefined;
    table ??= new Map(await Promise.all(Object.entries(keys).map(async ([k, v]) => [await sha256(k), v] as const)));
    return table.get(await sha256(key));
  };
}

/**
 * A fixed-window counter per principal, in memory (one instance; use a shared store across instances).
 *
 * @example
 * ```ts
 * const limit = createWindowLimiter();
 * if (!limit(principal).ok) return tooManyRequests();
 * ```
 */
export function createWindowLimiter(): (principal: GatewayPrincipal, now?: number) => { ok: true } | { ok: false; retryAfterSeconds: number } {
  const windows = new Map<string, { start: number; count: number }>();
  return (principal, now = Date.now()) => {
    const limit = principal.rateLimit;
    if (!limit) return { ok: true };
    let window = windows.get(principal.id);
    if (!window || now - window.start >= limit.windowMs) {
      window = { start: now, count: 0 };
      windows.set(principal.id, window);
      // Forget idle principals so the map stays bounded by the active ones.
      if (windows.size > 10_000) for (const [id, w] of windows) if (now - w.start >= limit.windowMs) windows.delete(id);
    }
    if (window.count >= limit.requests) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((window.start + limit.windowMs - now) / 1000)) };
    window.count++;
    return { ok: true };
  };
}
