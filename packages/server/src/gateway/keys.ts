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
  /** At most `usd` US dollars of model usage (priced from the catalog) per `windowMs` (default: no budget). */
  budget?: { usd: number; windowMs: number };
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

/** `node:crypto`'s hash, where the runtime has it (Node ≥ 20.16, Bun, Deno, workerd with `nodejs_compat`). */
type CreateHash = (algorithm: 'sha256') => { update(text: string): { digest(encoding: 'hex'): string } };
let nodeHash: CreateHash | null | undefined;
const hashOf = (): CreateHash | null =>
  (nodeHash ??= (globalThis as { process?: { getBuiltinModule?: (id: string) => { createHash?: CreateHash } | undefined } }).process?.getBuiltinModule?.('node:crypto')?.createHash ?? null);

/**
 * A key's SHA-256 in hex. Synchronous where `node:crypto` is there: Web Crypto's `digest` is a job on
 * the thread pool and a promise, ~0.1 ms of CPU on every call the gateway answers (against ~5 µs).
 */
async function sha256(text: string): Promise<string> {
  const hash = hashOf();
  if (hash) return hash('sha256').update(text).digest('hex');
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The shortest gateway key accepted: 16 characters. A gateway key is a bearer credential checked
 * on every call with no other factor, so it must not be guessable; 16 random characters (the
 * length of the 64-bit `openssl rand -hex 8`, or a quarter of `openssl rand -hex 32`) is the least
 * that keeps an online guess hopeless, and every provider's own API keys are far longer.
 *
 * @example
 * ```ts
 * import { MIN_GATEWAY_KEY_LENGTH } from '@parlance/server/gateway';
 * if (key.length < MIN_GATEWAY_KEY_LENGTH) throw new Error('gateway key too short');
 * ```
 */
export const MIN_GATEWAY_KEY_LENGTH = 16;

/**
 * What is wrong with a list of gateway keys, one sentence each, naming a key by its place and
 * principal (never by its value): empty, shorter than `MIN_GATEWAY_KEY_LENGTH`, holding
 * whitespace (a caller's SDK trims or cannot send it), or the same as another (after trimming,
 * as `gatewayKeyOf` reads a key: two principals behind one key).
 *
 * @example
 * ```ts
 * gatewayKeyProblems([['short', { id: 'a' }]]);
 * // ['Gateway key 1 (principal "a") is 5 characters long: a gateway key must be at least 16']
 * ```
 */
export function gatewayKeyProblems(keys: readonly (readonly [string, GatewayPrincipal])[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  keys.forEach(([key, principal], i) => {
    const name = `Gateway key ${i + 1} (principal "${principal.id}")`;
    if (key.trim() === '') {
      problems.push(`${name} is empty`);
      return;
    }
    if (/\s/.test(key)) problems.push(`${name} holds whitespace: a caller's SDK trims it or cannot send it in a header`);
    if (key.trim().length < MIN_GATEWAY_KEY_LENGTH) problems.push(`${name} is ${key.trim().length} characters long: a gateway key must be at least ${MIN_GATEWAY_KEY_LENGTH} (openssl rand -hex 16)`);
    const first = seen.get(key.trim());
    if (first !== undefined) problems.push(`${name} is the same key as gateway key ${first + 1}`);
    else seen.set(key.trim(), i);
  });
  return problems;
}

/**
 * The `authorize` hook `staticKeys` returns: it also carries what is wrong with its table, which
 * `checkGatewayConfig` reports at start.
 *
 * @example
 * ```ts
 * import { staticKeys } from '@parlance/server/gateway';
 * const authorize = staticKeys({ 'gw-7f3a9c2e41d8b605': { id: 'team-a' } });
 * console.log(authorize.keyProblems); // []
 * ```
 */
export interface StaticKeys {
  (key: string | undefined): Promise<GatewayPrincipal | undefined>;
  /** What is wrong with the keys (see `gatewayKeyProblems`); empty when nothing is. */
  readonly keyProblems: readonly string[];
}

/**
 * An `authorize` hook for a fixed table of keys (an object, or `[key, principal]` pairs, e.g. read
 * from the environment). Keys are compared by their SHA-256, so a lookup's time does not depend on
 * how much of a guess matches. Nothing is checked or thrown here (a route file may build the gateway
 * at import): the table's problems are reported by the gateway (see `StaticKeys.keyProblems`).
 *
 * @example
 * ```ts
 * createGateway({
 *   routes: { fast: 'openai:gpt-5-mini' },
 *   authorize: staticKeys({ 'sk-team-a-0123456789': { id: 'team-a', models: ['fast'], rateLimit: { requests: 60, windowMs: 60_000 } } }),
 * });
 * ```
 */
export function staticKeys(keys: Record<string, GatewayPrincipal> | readonly (readonly [string, GatewayPrincipal])[]): StaticKeys {
  const entries = Array.isArray(keys) ? [...(keys as readonly (readonly [string, GatewayPrincipal])[])] : Object.entries(keys as Record<string, GatewayPrincipal>);
  let table: Map<string, GatewayPrincipal> | undefined;
  const authorize = async (key: string | undefined) => {
    if (key === undefined) return undefined;
    table ??= new Map(await Promise.all(entries.map(async ([k, v]) => [await sha256(k), v] as const)));
    return table.get(await sha256(key));
  };
  return Object.assign(authorize, { keyProblems: gatewayKeyProblems(entries) });
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
