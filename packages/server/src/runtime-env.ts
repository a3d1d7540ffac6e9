/**
 * The runtime around a request: its environment (Workers bindings or `process.env`) and its
 * execution context (`waitUntil` on Workers, nothing elsewhere).
 */
import type { Context } from 'hono';

/**
 * The runtime's environment: `process.env`, or a Worker's bindings.
 *
 * @example
 * models: (env: Env) => (env.OPENAI_API_KEY ? catalogModels(['openai:gpt-5-mini']) : [])
 */
export type Env = Record<string, string | undefined>;

/** The environment of this request: `fallback` when given, else the Worker's string bindings, else `process.env`. */
export function runtimeEnv(c: Context, fallback: Env | undefined): Env {
  if (fallback) return fallback;
  const bindings = c.env as Record<string, unknown> | undefined;
  if (bindings && typeof bindings === 'object' && !('incoming' in bindings)) {
    const out: Env = {};
    for (const [k, v] of Object.entries(bindings)) if (typeof v === 'string') out[k] = v;
    if (Object.keys(out).length) return out;
  }
  return (globalThis as { process?: { env?: Env } }).process?.env ?? {};
}

/**
 * The runtime's bindings as they are: a Worker's `env` (R2 buckets, KV, Durable Objects and
 * strings), which `runtimeEnv` narrows to its strings; elsewhere `env`.
 */
export function runtimeBindings(c: Context, env: Env): Readonly<Record<string, unknown>> {
  const bindings = c.env as Record<string, unknown> | undefined;
  return bindings && typeof bindings === 'object' && !('incoming' in bindings) ? bindings : env;
}

/** The environment known when the app is built: `process.env` off Workers (where bindings only exist per request). */
export function startEnv(fallback: Env | undefined): Env | undefined {
  const onWorkers = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
  return fallback ?? (onWorkers ? undefined : (globalThis as { process?: { env?: Env } }).process?.env);
}

/** Keeps `promise` alive after the response on Workers; elsewhere it runs on its own. */
export function waitUntil(c: Context, promise: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(promise);
  } catch {
    // No execution context (Node, Bun, tests): the promise runs on its own.
  }
}
