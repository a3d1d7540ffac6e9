/**
 * The Parlance HTTP surface: a Hono app whose `fetch` is a plain
 * `(Request) => Promise<Response>`, so it runs unchanged on Workers, Node, Bun,
 * Deno and as a Next.js or Remix route handler. Provider keys are read from the
 * runtime's environment (Workers bindings or process.env), never from requests.
 *
 * Routes (mount under any prefix with `app.route('/api', parlance)`):
 *   POST /chat                 start or continue a run; SSE of protocol events
 *   GET  /runs/:runId/events   resume from Last-Event-ID, then follow live
 *   POST /runs/:runId/cancel   abort the run upstream; it ends with chat-finish 'cancelled'
 *   GET  /models               the models this server offers
 */
import {
  createThreadFold,
  type ErrorCode,
  type Event,
  type HaltReason,
  type Message,
  ParlanceError,
  parseEventId,
  parseThread,
  type Thread,
  type Usage,
  createThread,
  type CancelResponseBody,
  type ErrorResponseBody,
  type ModelEntry,
  type ResumeInput,
  type ToolDefinition,
} from '@parlance/protocol';
import type { ThreadTrust } from '@parlance/engine';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { createMemoryRunStore } from './memory-run-store.ts';
import { executeRun } from './run-execution.ts';
import { type RunRecord, type RunStore, storeUnavailable } from './run-store.ts';
import { type AllowedOrigins, checkJsonContentType, checkOrigin, jsonDepthExceeds } from './request-guard.ts';
import { chatBodySchema, clientOptionsSchema, type ParsedChatBody } from './schema.ts';
import { createScrubber, envSecrets, type Scrubber } from './scrub.ts';
import { createTrustResolver, isDevelopment, missingSecretError, type RunnerProfile, signingSecrets } from './server-trust.ts';
import type { ZodType } from 'zod';
import { sseResponse } from './sse.ts';

/**
 * The runtime's environment: `process.env`, or a Worker's bindings.
 *
 * @example
 * models: (env: Env) => (env.OPENAI_API_KEY ? catalogModels(['openai:gpt-5-mini']) : [])
 */
export type Env = Record<string, string | undefined>;

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

function logError(error: unknown, context: ErrorContext): void {
  const where = context.runId ? ` in run ${context.runId}` : context.request ? ` answering ${context.request.method} ${new URL(context.request.url).pathname}` : '';
  console.error(`[parlance] error${where}:`, error);
}

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
  /** Returns a Response (e.g. 429) to refuse, anything else to proceed. */
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
   * Origins allowed to send POSTs (`/chat`, cancel) from a browser, besides the server's own.
   * Default: only the server's own when `authorize` is set (cookies must not work cross-site),
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
}

/**
 * What `authorize` may return: a principal, a falsy value (401), or a Response that refuses the request.
 *
 * @example
 * authorize: async (request) => (await session(request))?.userId ?? new Response('Sign in', { status: 401 })
 */
export type AuthorizeResult = Principal | Response | undefined | null | false;

function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replace(/-/g, '')}`;
}

export function errorResponse(status: number, code: ErrorCode, message: string, issues?: unknown[]): Response {
  const body: ErrorResponseBody = { error: { code, message } };
  if (issues !== undefined) body.error.issues = issues;
  return Response.json(body, { status });
}

export async function readBody(request: Request, limit: number): Promise<string | Response> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    return errorResponse(413, 'invalid_request', `The request body is larger than ${limit} bytes`);
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return errorResponse(413, 'invalid_request', `The request body is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function runtimeEnv(c: Context, fallback: Env | undefined): Env {
  if (fallback) return fallback;
  const bindings = c.env as Record<string, unknown> | undefined;
  if (bindings && typeof bindings === 'object' && !('incoming' in bindings)) {
    const out: Env = {};
    for (const [k, v] of Object.entries(bindings)) if (typeof v === 'string') out[k] = v;
    if (Object.keys(out).length) return out;
  }
  return (globalThis as { process?: { env?: Env } }).process?.env ?? {};
}

/** The collision-free key of a request: principal id and client request id as a JSON pair. */
function requestKey(principal: Principal | undefined, clientRequestId: string): string {
  return JSON.stringify([principal?.id ?? null, clientRequestId]);
}

/** Whether a stored run belongs to this principal (the whole id compared, never a prefix). */
function ownedBy(key: string, principal: Principal | undefined): boolean {
  try {
    const parsed = JSON.parse(key) as unknown;
    return Array.isArray(parsed) && parsed.length === 2 && parsed[0] === (principal?.id ?? null);
  } catch {
    return false;
  }
}

function refusal(error: ParlanceError, issues?: unknown[]): Response {
  return errorResponse(error.status ?? 400, error.code, error.message, issues);
}

function waitUntil(c: Context, promise: Promise<unknown>) {
  try {
    c.executionCtx.waitUntil(promise);
  } catch {
    // No execution context (Node, Bun, tests): the promise runs on its own.
  }
}

/**
 * The Parlance API as a Hono app: `POST /chat`, `GET /runs/:runId/events` (resume), `POST /runs/:runId/cancel`, `GET /models`. Mount it where the client's `api` points.
 *
 * @example
 * const app = new Hono().route('/api', createParlanceApp({
 *   models: catalogModels(['anthropic:claude-sonnet-4-5']),
 *   run: engineRunner({ engine: { tools: [weather] } }),
 * }));
 * export default app; // Node (@hono/node-server), Bun, Deno, Workers
 */
export function createParlanceApp(options: ParlanceServerOptions): Hono<any, any, any> {
  const store = options.store ?? createMemoryRunStore();
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const generateId = options.generateId ?? randomId;
  const reportError = (error: unknown, context: ErrorContext) => {
    try {
      (options.onError ?? logError)(error, context);
    } catch {
      // A failing logger must not take a run down with it.
    }
  };
  const app = options.basePath ? new Hono().basePath(options.basePath) : new Hono();
  const maxJsonDepth = options.maxJsonDepth ?? 64;
  const allowedOrigins: AllowedOrigins = options.allowedOrigins ?? (options.authorize ? [] : '*');
  const profile = (env: Env) => options.run.profile?.(env);
  const trustFor = createTrustResolver(options, profile);
  // Refuse to start a server with tools and no signing secret, where the environment is known now
  // (on Workers, bindings only exist per request: there the first request is refused instead).
  const onWorkers = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
  const startEnv = options.env ?? (onWorkers ? undefined : (globalThis as { process?: { env?: Env } }).process?.env);
  if (startEnv && !signingSecrets(options, startEnv) && !isDevelopment(options, startEnv) && (profile(startEnv)?.tools ?? 0) > 0) {
    throw missingSecretError();
  }

  async function offered(env: Env): Promise<ModelEntry[]> {
    return typeof options.models === 'function' ? await options.models(env) : options.models;
  }

  async function authorize(request: Request): Promise<{ principal: Principal | undefined } | Response> {
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
  }

  /** Starts the run, or joins the one this request key already started; the run goes on after the response. */
  async function startRun(c: Context, body: ParsedChatBody, thread: Thread, model: string, principal: Principal | undefined, trust: ThreadTrust | undefined): Promise<string> {
    const { run, created } = await store
      .create({ id: generateId('run'), requestKey: requestKey(principal, body.clientRequestId), createdAt: Date.now() })
      .catch((error: unknown) => {
        throw storeUnavailable(error);
      });
    if (!created) return run.id;
    const runId = run.id;
    const env = runtimeEnv(c, options.env);
    let finalThread: Thread | undefined;
    const scrub = createScrubber([...envSecrets(env), ...(options.secrets ?? []), ...(profile(env)?.secrets ?? []), ...(signingSecrets(options, env) ?? [])]);
    const work = executeRun({
      store,
      runId,
      run: (signal) => {
        const input: ChatRunInput = { runId, thread, model, options: body.options ?? {}, signal, env, principal, generateId };
        if (body.resume) input.resume = body.resume;
        // Every event is scrubbed, then signed: what is signed is exactly what the browser gets.
        // A caller that sent its thread folds the events onto it (`threadAfterRun`): the runner's
        // thread is not sent back. A caller that sent bare messages holds no thread, so it gets it.
        const lean = body.thread !== undefined;
        const name = (raw: Event): Event => {
          if (raw.type === 'message-start' && !raw.messageId) return { ...raw, messageId: generateId('msg') };
          if (lean && raw.type === 'chat-finish' && raw.thread) {
            const { thread: _foldedByTheBrowser, ...event } = raw;
            return event;
          }
          return raw;
        };
        const events = prepared(options.run(input), name, scrub);
        const signed = trust ? trust.signEvents(thread, events) : events;
        // `onFinish` gets the thread the browser ends with: what is sent, folded as the browser folds it.
        return lean && options.onFinish ? following(thread, signed, (t) => (finalThread = t)) : signed;
      },
      // The error executeRun writes itself (a runner's exception) is scrubbed too; the runner's events already were.
      prepare: (event) => (event.type === 'error' ? scrub.event(event) : event),
      // Text the scrubber still holds when a run ends mid-block (see `prepared`).
      flush: () => scrub.flush(),
      onFinish: async (event) => {
        const finish: FinishedRun = { runId, principal, model, haltReason: event.haltReason, usage: event.usage };
        const kept = event.thread ?? finalThread;
        if (kept) finish.thread = kept;
        await options.onFinish?.(finish);
      },
      onError: (error) => reportError(error, { runId }),
    });
    waitUntil(c, work);
    return runId;
  }

  app.post('/chat', async (c) => {
    const badOrigin = checkOrigin(c.req.raw, allowedOrigins);
    if (badOrigin) return refusal(badOrigin);
    const notJson = checkJsonContentType(c.req.raw);
    if (notJson) return refusal(notJson);
    const auth = await authorize(c.req.raw);
    if (auth instanceof Response) return auth;
    const { principal } = auth;
    if (options.rateLimit) {
      const refused = await options.rateLimit(principal, c.req.raw);
      if (refused instanceof Response) return refused;
    }
    const text = await readBody(c.req.raw, maxBodyBytes);
    if (text instanceof Response) return text;
    if (jsonDepthExceeds(text, maxJsonDepth)) {
      return errorResponse(400, 'invalid_request', `The body nests arrays and objects deeper than ${maxJsonDepth} levels`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return errorResponse(400, 'invalid_request', `The body is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = chatBodySchema.safeParse(json);
    if (!parsed.success) {
      return errorResponse(400, 'invalid_request', 'The request body is invalid', parsed.error.issues);
    }
    const body = parsed.data;
    const clientOptions = (options.clientOptions ?? clientOptionsSchema).safeParse(body.options ?? {});
    if (!clientOptions.success) {
      const issues = clientOptions.error.issues.map((issue) => ({ ...issue, path: ['options', ...issue.path] }));
      return errorResponse(400, 'invalid_request', 'These options are not accepted', issues);
    }
    body.options = clientOptions.data;
    let thread: Thread;
    try {
      thread = body.thread
        ? parseThread(body.thread)
        : parseThread(createThread(generateId('thread'), body.messages as Message[]));
    } catch (error) {
      const e = ParlanceError.from(error, 'invalid_request');
      const path = body.thread ? ['thread', ...(e.path ?? [])] : ['messages', ...(e.path ?? []).slice(1)];
      return errorResponse(400, 'invalid_request', e.message, [{ path, message: e.message }]);
    }
    const env = runtimeEnv(c, options.env);
    // The trust boundary: nothing in the thread runs, and nothing answers a pause, unless this server signed it.
    const trust = trustFor(env);
    try {
      if (trust) await trust.verifyThread(thread, { ...(body.resume ? { resume: body.resume } : {}), allowSystemMessages: options.allowSystemMessages ?? false });
      else if (!options.allowSystemMessages) refuseSystemMessages(thread);
    } catch (error) {
      const e = ParlanceError.from(error);
      const path = e.path?.[0] === 'messages' && body.thread ? ['thread', ...e.path] : e.path;
      return refusal(e, path ? [{ path, message: e.message }] : undefined);
    }
    const models = await offered(env);
    const model = body.model ?? options.defaultModel ?? models[0]?.id;
    if (!model || !models.some((m) => m.id === model)) {
      return errorResponse(400, 'invalid_request', `Unknown model "${body.model ?? ''}"`);
    }
    if (options.allowModel && !(await options.allowModel(principal, model))) {
      return errorResponse(403, 'permission', `You may not use model "${model}"`);
    }
    const runId = await startRun(c, body, thread, model, principal, trust);
    return sseResponse((signal) => store.follow(runId, -1, signal), { runId, heartbeatMs, onError: (error) => reportError(error, { runId }) });
  });

  /** The run named in the path, if it exists and belongs to the caller (another's run is a 404 too). */
  async function ownRun(c: Context): Promise<{ runId: string; run: RunRecord } | Response> {
    const auth = await authorize(c.req.raw);
    if (auth instanceof Response) return auth;
    const runId = c.req.param('runId') ?? '';
    const run = await store.get(runId).catch((error: unknown) => {
      throw storeUnavailable(error);
    });
    if (!run || !ownedBy(run.requestKey, auth.principal)) {
      return errorResponse(404, 'not_found', `No run "${runId}"`);
    }
    return { runId, run };
  }

  app.get('/runs/:runId/events', async (c) => {
    const found = await ownRun(c);
    if (found instanceof Response) return found;
    const { runId, run } = found;
    const raw = c.req.header('Last-Event-ID') ?? c.req.query('lastEventId');
    const last = raw === undefined || raw === '' ? undefined : parseEventId(raw);
    // A sequence of this run (an id of an older version names its run: it must be this one).
    if (raw !== undefined && raw !== '' && (!last || (last.runId !== undefined && last.runId !== runId))) {
      return errorResponse(400, 'invalid_request', `Last-Event-ID must be the sequence number of an event of run "${runId}"`);
    }
    const after = last ? last.sequence : -1;
    if (after >= 0 && run.status === 'finished' && !(await hasEvent(runId, after))) {
      return errorResponse(400, 'invalid_request', `Run "${runId}" has no event ${after}`);
    }
    return sseResponse((signal) => store.follow(runId, after, signal), { runId, heartbeatMs, onError: (error) => reportError(error, { runId }) });
  });

  /** Whether a stored run has an event with this sequence (it has them all from 0 to its last). */
  async function hasEvent(runId: string, seq: number): Promise<boolean> {
    const peek = new AbortController();
    try {
      for await (const stored of store.follow(runId, seq - 1, peek.signal)) return stored.seq === seq;
      return false;
    } finally {
      peek.abort();
    }
  }

  app.post('/runs/:runId/cancel', async (c) => {
    const badOrigin = checkOrigin(c.req.raw, allowedOrigins);
    if (badOrigin) return refusal(badOrigin);
    const found = await ownRun(c);
    if (found instanceof Response) return found;
    const { runId, run } = found;
    // A flag in the store: the instance running the upstream call sees it and aborts (see run-execution.ts).
    await store.cancel(runId).catch((error: unknown) => {
      throw storeUnavailable(error);
    });
    return c.json({ ok: true, status: run.status } satisfies CancelResponseBody, 202);
  });

  app.get('/models', async (c) => {
    const auth = await authorize(c.req.raw);
    if (auth instanceof Response) return auth;
    const models = await offered(runtimeEnv(c, options.env));
    const visible = [];
    for (const m of models) if (!options.allowModel || (await options.allowModel(auth.principal, m.id))) visible.push(m);
    return c.json({ models: visible });
  });

  app.notFound(() => errorResponse(404, 'not_found', 'No such route'));
  app.onError((error, c) => {
    // Never leak a stack trace or upstream details: the code and a generic message only; the rest goes to onError.
    const e = ParlanceError.isInstance(error) ? error : undefined;
    const status = e?.status ?? 500;
    // Report what the client is not told: an unexpected error, or the cause behind a typed one.
    if (!e || e.cause !== undefined) reportError(error, { request: c.req.raw });
    const response = errorResponse(status, e?.code ?? 'server_error', e ? e.message : 'Internal error');
    if (e?.retryAfterMs !== undefined) response.headers.set('Retry-After', String(Math.ceil(e.retryAfterMs / 1000)));
    return response;
  });
  return app;
}

/** Without a signing secret (development, or no tools), system messages are still refused unless allowed. */
function refuseSystemMessages(thread: Thread): void {
  const at = thread.messages.findIndex((m) => m.role === 'system');
  if (at >= 0) {
    throw new ParlanceError('permission', "System messages are the server's: a client may not send one", { status: 403, path: ['messages', at, 'role'] });
  }
}

/** The events as they pass, with the thread they fold to from `sent` (as the browser folds them) given to `done` at `chat-finish`. */
async function* following(sent: Thread, events: AsyncIterable<Event>, done: (thread: Thread) => void): AsyncGenerator<Event> {
  const fold = createThreadFold(sent);
  for await (const event of events) {
    fold.push(event);
    if (event.type === 'chat-finish') done(fold.thread());
    yield event;
  }
}

/**
 * The runner's events through `map`, then through the run's scrubber: a delta's tail that may begin a
 * secret is held back and comes out before the event that must follow it (the block's next delta or
 * end, a finish); what is still held when the stream ends is taken by `executeRun` (`flush`).
 */
async function* prepared(events: AsyncIterable<Event>, map: (event: Event) => Event, scrub: Scrubber): AsyncGenerator<Event> {
  const released: Event[] = [];
  for await (const raw of events) {
    const event = scrub.push(map(raw), released);
    if (released.length > 0) {
      const before = released.splice(0);
      for (const held of before) yield held;
    }
    if (event !== undefined) yield event;
  }
}

/**
 * The same app as a plain `(request) => Promise<Response>`: a Next.js or Remix route handler.
 *
 * @example
 * // app/api/chat/[...path]/route.ts (Next.js); the client uses useChat({ api: '/api/chat' })
 * const handler = createParlanceHandler({ basePath: '/api/chat', models: catalogModels(['openai:gpt-5-mini']), run: engineRunner() });
 * export { handler as GET, handler as POST };
 */
export function createParlanceHandler(options: ParlanceServerOptions): (request: Request) => Promise<Response> {
  const app = createParlanceApp(options);
  return async (request) => app.fetch(request);
}
