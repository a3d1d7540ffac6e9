/**
 * What every route of one Parlance app shares, built once from its options: the store, ids,
 * limits, the trust resolver, the error reporter, the offered models and `authorize`.
 */
import { type ModelEntry, ParlanceError } from '@parlance/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { createBytesEdge, createEdge } from './edge/edge.ts';
import { DEFAULT_MAX_FILE_BYTES } from './files/file-options.ts';
import { handOversOf, type HandOvers } from './hand-over.ts';
import type { AllowedOrigins } from './edge/origin.ts';
import { errorResponse, jsonRefusal } from './error-response.ts';
import { createMemoryRunStore } from './memory-run-store.ts';
import type { RunStore } from './run-store.ts';
import { configError, configProblems } from './check-config.ts';
import { type Env, runtimeEnv } from './runtime-env.ts';
import type { ErrorContext, ParlanceServerOptions, Principal } from './server-options.ts';
import { createTrustResolver, type RunnerProfile } from './server-trust.ts';
import { DEFAULT_HEARTBEAT_MS } from './sse.ts';

export interface ServerContext {
  readonly options: ParlanceServerOptions;
  readonly store: RunStore;
  readonly heartbeatMs: number;
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
  readonly allowedOrigins: AllowedOrigins;
  generateId(prefix: string): string;
  /** Gives an error to `onError` (default `console.error`); a failing logger is ignored. */
  reportError(error: unknown, context: ErrorContext): void;
  /** What the runner says about itself in this environment. */
  profile(env: Env): RunnerProfile | undefined;
  /** The thread trust of this environment (undefined: no signing, as in development without a secret). */
  trustFor: ReturnType<typeof createTrustResolver>;
  /** The request's runtime environment. */
  env(c: Context): Env;
  /** The models this environment offers. */
  offered(env: Env): Promise<ModelEntry[]>;
  /** The caller as `authorize` says: its principal, or a Response that refuses it. */
  authorize(request: Request): Promise<{ principal: Principal | undefined } | Response>;
  /**
   * The guards every route passes first (`edge/edge.ts`): Origin, `authorize`, `rateLimit`,
   * content type, body size, JSON depth and parse. Routes read `principalOf(c)` and `jsonOf(c)`.
   */
  edge: MiddlewareHandler;
  /** The runs this app may hand over on a graceful shutdown (`options.handOver`). */
  handOvers: HandOvers;
  /** The same guards for `POST /files`: the body is the file's bytes (`application/octet-stream`, at most `files.maxFileBytes`). */
  filesEdge: MiddlewareHandler;
}

/**
 * The server's ids: 128 random bits (122 for a UUID's). A message id travels in every response and
 * in the thread, so it is base64url (22 characters); the others keep 32 hex characters (blob stores
 * take only `file_<hex>` keys).
 */
function randomId(prefix: string): string {
  if (prefix !== 'msg') return `${prefix}_${crypto.randomUUID().replace(/-/g, '')}`;
  let binary = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(16))) binary += String.fromCharCode(byte);
  return `msg_${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

function logError(error: unknown, context: ErrorContext): void {
  const where = context.runId ? ` in run ${context.runId}` : context.request ? ` answering ${context.request.method} ${new URL(context.request.url).pathname}` : '';
  console.error(`[parlance] error${where}:`, error);
}

/**
 * The shared state of one app. Builds without checking anything (a Next.js `next build` evaluates
 * route files with no environment); the configuration is checked at the first request of each
 * environment (`check-config.ts`), and a bad one answers every request with its typed error.
 */
export function createServerContext(options: ParlanceServerOptions): ServerContext {
  const profile = (env: Env) => options.run.profile?.(env);
  // Checked once per environment (process.env: once; Workers bindings: once per distinct values), at most 8 kept.
  const checked = new Map<string, ParlanceError | null>();
  const configured = (env: Env): ParlanceError | undefined => {
    const key = JSON.stringify([env.PARLANCE_SECRET, env.PARLANCE_SECRET_PREVIOUS, env.NODE_ENV, profile(env)?.tools ?? 0]);
    let error = checked.get(key);
    if (error === undefined) {
      const problems = configProblems(options, env);
      error = problems.length > 0 ? configError(problems) : null;
      if (error) ctx.reportError(error, {});
      if (checked.size >= 8) checked.clear();
      checked.set(key, error);
    }
    return error ?? undefined;
  };
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxJsonDepth = options.maxJsonDepth ?? 64;
  const allowedOrigins: AllowedOrigins = options.allowedOrigins ?? (options.authorize ? [] : '*');
  const rateLimit = options.rateLimit;
  const caller = {
    allowedOrigins,
    authorize: (c: Context) => ctx.authorize(c.req.raw),
    rateLimit: rateLimit
      ? async (principal: Principal | undefined, c: Context) => {
          const refused = await rateLimit(principal, c.req.raw);
          return refused instanceof Response ? refused : undefined;
        }
      : undefined,
    // A refusal with the path of the bad value (a strict JSON read names it) carries it as an issue.
    refuse: (_c: Context, error: ParlanceError) => jsonRefusal(error),
  };
  const edge = createEdge<Principal | undefined>({ ...caller, maxBodyBytes, maxJsonDepth });
  const bytesEdge = createBytesEdge<Principal | undefined>({ ...caller, maxBodyBytes: options.files?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES });
  const ctx: ServerContext = {
    options,
    store: options.store ?? createMemoryRunStore(),
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    handOvers: handOversOf(options.handOver),
    maxBodyBytes,
    maxJsonDepth,
    allowedOrigins,
    generateId: options.generateId ?? randomId,
    reportError(error, context) {
      try {
        (options.onError ?? logError)(error, context);
      } catch {
        // A failing logger must not take a run down with it.
      }
    },
    profile,
    trustFor: createTrustResolver(options, profile),
    env: (c) => runtimeEnv(c, options.env),
    offered: async (env) => (typeof options.models === 'function' ? await options.models(env) : options.models),
    async authorize(request) {
      if (!options.authorize) return { principal: undefined };
      const result: unknown = await options.authorize(request);
      if (result instanceof Response) return result;
      if (result === undefined || result === null || result === false) {
        return errorResponse(401, 'authentication', 'Authentication required');
      }
      const id = typeof result === 'object' ? (result as { id?: unknown }).id : undefined;
      if (typeof id !== 'string' || id === '') {
        // A configuration error, not the caller's: keying runs by anything else (a JSON dump, a prefix) is how they leak.
        throw new ParlanceError('server_error', '`authorize` must return a principal with a non-empty string `id`', { retryable: false });
      }
      return { principal: result as Principal };
    },
    // The configuration first: a misconfigured server says so, in one typed error, on every route.
    async edge(c, next) {
      const misconfigured = configured(ctx.env(c));
      if (misconfigured) return errorResponse(500, misconfigured.code, misconfigured.message);
      return edge(c, next);
    },
    async filesEdge(c, next) {
      const misconfigured = configured(ctx.env(c));
      if (misconfigured) return errorResponse(500, misconfigured.code, misconfigured.message);
      return bytesEdge(c, next);
    },
  };
  return ctx;
}
