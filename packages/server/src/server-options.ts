/**
 * What `createParlanceApp` takes and what it hands a runner and the hooks: the server's
 * public option and hook types, in one place.
 */
import type { Event, HaltReason, ModelEntry, ResumeInput, Thread, ToolDefinition, Usage } from '@parlance/protocol';
import type { ZodType } from 'zod';
import type { FileSource } from '@parlance/engine';
import type { AllowedOrigins } from './edge/origin.ts';
import type { FileStoreOptions } from './files/file-options.ts';
import type { RunStore } from './run-store.ts';
import type { RunCheckpoint } from '@parlance/engine';
import type { RunHandOver } from './hand-over.ts';
import type { Env } from './runtime-env.ts';
import type { RunnerProfile } from './server-trust.ts';

export type { Env } from './runtime-env.ts';

/**
 * Who is asking, as `authorize` says. `id` keys ownership: a run belongs to the principal
 * whose `id` started it (compared as a whole string, never by prefix), and a repeated
 * `clientRequestId` joins a run only for the same `id`.
 *
 * @example
 * ```ts
 * createParlanceApp({
 *   models,
 *   run: engineRunner({ engine: { tools } }),
 *   authorize: async (request) => {
 *     const user = await sessionUser(request); // your auth
 *     return user ? { id: user.id, plan: user.plan } : undefined; // undefined -> 401
 *   },
 * });
 * ```
 */
export interface Principal {
  id: string;
  [key: string]: unknown;
}

/**
 * What a runner gets for one run: the run id, the (verified) thread, the model, the client's allowed options, a signal, the environment.
 *
 * @example
 * const run: ChatRunner = async function* (input: ChatRunInput) { yield* engine.streamChat({ thread: input.thread, model: input.model, signal: input.signal }); };
 */
export interface ChatRunInput {
  runId: string;
  thread: Thread;
  model: string;
  options: Record<string, unknown>;
  resume?: ResumeInput;
  signal: AbortSignal;
  env: Env;
  /** The principal `authorize` returned (undefined without `authorize`). */
  principal: Principal | undefined;
  generateId: (prefix: string) => string;
  /**
   * Tools the browser declared for this run (AG-UI's frontend tools): offered to the model as
   * client tools, answered by the browser. Only the frontend adapters set it; `engineRunner`
   * refuses a name a server tool already has.
   */
  clientTools?: ToolDefinition[];
  /**
   * Set when this instance takes over a run another instance started and stopped (a crash, a
   * hand-over): the events it stored. `thread`, `options` and `resume` are the ones the run started
   * with; a runner that goes on from checkpoints (`engineRunner`, with `profile().checkpoints`) yields
   * only what follows them.
   */
  checkpoint?: RunCheckpoint;
  /** Where the files the thread references are read from (set when the server has a file store; `engineRunner` passes it to the engine). */
  files?: FileSource;
}

/**
 * Runs a chat and yields protocol events, ending with exactly one `chat-finish`. `profile`
 * (set by `engineRunner`) tells the server whether the runner has tools, so it must sign,
 * and which configured values are credentials, so it scrubs them.
 *
 * The browser's thread is what the events fold to from the thread it sent (`runMessages`):
 * the `thread` on a runner's `chat-finish` goes to `onFinish`, not to the browser (unless
 * the request sent bare `messages`). To add to a message beyond its parts, yield a
 * `message-metadata` event.
 *
 * @example
 * const echo: ChatRunner = async function* ({ thread }) { yield { type: 'chat-finish', haltReason: 'completed', usage: {}, thread }; };
 */
export type ChatRunner = ((input: ChatRunInput) => AsyncIterable<Event>) & { profile?: (env: Env) => RunnerProfile };

/**
 * What `onFinish` gets when a run ends.
 *
 * @example
 * onFinish: ({ principal, model, usage }) => billing.record(principal, model, usage)
 */
export interface FinishedRun {
  runId: string;
  principal: Principal | undefined;
  model: string;
  haltReason: HaltReason;
  usage: Usage;
  /** The thread the runner ended with, signed (the browser folds the same from the events). */
  thread?: Thread;
}

/**
 * Where an error reported to `onError` happened.
 *
 * @example
 * onError: (error, { runId }) => logger.error({ runId, error })
 */
export interface ErrorContext {
  runId?: string;
  request?: Request;
}

/**
 * What `authorize` may return: a principal, a falsy value (401), or a Response that refuses the request.
 *
 * @example
 * authorize: async (request) => (await session(request))?.userId ?? new Response('Sign in', { status: 401 })
 */
export type AuthorizeResult = Principal | Response | undefined | null | false;

/**
 * What `createParlanceApp` / `createParlanceHandler` take: the runner and the models, plus auth, allow-lists, rate limits, the run store, limits and hooks.
 *
 * @example
 * const options: ParlanceServerOptions = { basePath: '/api/chat', models: catalogModels(['openai:gpt-5-mini']), run: engineRunner(), authorize };
 */
export interface ParlanceServerOptions {
  run: ChatRunner;
  models: ModelEntry[] | ((env: Env) => ModelEntry[] | Promise<ModelEntry[]>);
  /** The model used when a request names none (default: the first offered). */
  defaultModel?: string;
  /**
   * Returns the principal (`{ id: string, ... }`; `id` keys run ownership and request dedupe),
   * a falsy value (401), or a Response to refuse the request. Setting it turns the `Origin`
   * check on (see `allowedOrigins`).
   */
  authorize?: (request: Request) => AuthorizeResult | Promise<AuthorizeResult>;
  /** Per-principal allow-list: may this principal use this model? */
  allowModel?: (principal: Principal | undefined, model: string) => boolean | Promise<boolean>;
  /** Returns a Response (e.g. 429) to refuse, anything else to proceed. Asked at the edge, after `authorize`, for every request of every route (the frontends' included, once per request). */
  rateLimit?: (principal: Principal | undefined, request: Request) => undefined | Response | Promise<undefined | Response>;
  /**
   * The key that signs every tool call, result and pause a run produces, so the thread the
   * browser sends back can be verified (at least 32 characters; a list rotates keys: the first
   * signs, all verify). Default: `PARLANCE_SECRET`, then `PARLANCE_SECRET_PREVIOUS` (comma-separated)
   * from the environment. A server whose runner has tools refuses to start without one, unless
   * `development` is set. See SECURITY.md.
   */
  secret?: string | readonly string[];
  /** Run tools without a signing secret, trusting the browser's thread (default: NODE_ENV === 'development'). */
  development?: boolean;
  /** Accept `system` messages in the posted thread (default false: the system prompt is the server's). */
  allowSystemMessages?: boolean;
  /**
   * Origins allowed to send requests from a browser, besides the server's own; checked at the
   * edge on every route (a same-origin GET sends no `Origin`). Default: only the server's own when `authorize` is set (cookies must not work cross-site),
   * anyone ('*') otherwise. A request with no `Origin` (not a browser) is always let through.
   */
  allowedOrigins?: AllowedOrigins;
  /** More values to scrub from every event (besides secret-looking environment variables and the signing secret). */
  secrets?: readonly string[];
  /** Arrays and objects in a request body may nest this deep (default 64); deeper is a 400. */
  maxJsonDepth?: number;
  onFinish?: (finish: FinishedRun) => void | Promise<void>;
  /**
   * Where runs live (default: `createMemoryRunStore()`, this process's memory). Behind a load
   * balancer, give every instance the same shared store (`@parlance/server/redis`,
   * `@parlance/server/durable-objects`) so any instance can resume or cancel any run.
   */
  store?: RunStore;
  /** Request bodies larger than this are refused with 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * A silent stream sends a `: ping` comment this often (default `DEFAULT_HEARTBEAT_MS`, 8 s: under
   * Bun's 10 s idle limit and every common proxy's). Lower it behind a proxy with a shorter idle timeout.
   */
  heartbeatMs?: number;
  /** The runtime's environment when it is not Hono's `c.env` (default: process.env when present). */
  env?: Env;
  generateId?: (prefix: string) => string;
  /** What `options` a client may send (default: temperature, topP, maxOutputTokens, thinking). */
  clientOptions?: ZodType<Record<string, unknown>>;
  /**
   * Gets every error the client is not shown in full: an exception in the runner, a failing
   * `onFinish`, a store that cannot be reached, an unexpected error answered with a 500.
   * Default: `console.error`, so a plain Worker's logs show why a request failed.
   */
  onError?: (error: unknown, context: ErrorContext) => void;
  /** A path prefix the routes live under when the app is not mounted by a parent (e.g. '/api' for a Next.js catch-all route). */
  basePath?: string;
  /**
   * Take over runs whose instance stopped (default true). With a store that can claim runs (Redis)
   * and a runner that goes on from checkpoints (`engineRunner`), a run whose instance crashed is
   * continued by the instance of its next reader once its lease lapses (`RunLimits.leaseMs`), from
   * its last checkpoint; false: it ends `run_lost` as before, and the client retries the turn.
   */
  takeover?: boolean;
  /** Hands this app's runs over to other instances on a graceful shutdown (`createRunHandOver`). */
  handOver?: RunHandOver;
  /**
   * A file store: the app then serves `POST /files`, which stores a file and answers a reference
   * signed for the caller that threads hold instead of the bytes; runners read the files back
   * through `ChatRunInput.files`. Without it, clients send small files inline (see `FileStoreOptions`).
   */
  files?: FileStoreOptions;
}
