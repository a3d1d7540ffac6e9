/**
 * What both frontend adapters stand on: a private Parlance app built from the same options, so a
 * run started through the AI SDK or AG-UI route goes through exactly the checks of `POST /chat`
 * (Origin, content type, `authorize`, rate limit, body limits, client options, model allow-list,
 * the signed-thread trust boundary, no client system messages) and runs on the same runner and
 * the same store. The adapters only translate: their request into a `ChatRequestBody`, and the
 * run's stored protocol events into their own stream.
 */
import { type ChatRequestBody, ParlanceError, type ToolDefinition } from '@parlance/protocol';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ZodType } from 'zod';
import { principalOf } from '../edge/caller.ts';
import { errorResponse } from '../error-response.ts';
import { assembleParlanceApp } from '../handler.ts';
import { createMemoryRunStore } from '../memory-run-store.ts';
import type { RunStore, StoredEvent } from '../run-store.ts';
import { clientOptionsSchema } from '../schema.ts';
import { createServerContext } from '../server-context.ts';
import type { ChatRunner, ParlanceServerOptions, Principal } from '../server-options.ts';

/**
 * How the adapters hand the browser's declared tools to the runner: the body's `options` names a
 * one-time nonce under this key, the private app's option validator swaps it for the tools (kept
 * in this process) under a symbol key JSON cannot carry. A nonce this process did not issue is
 * left in place, and the server's strict option schema refuses it.
 */
const TOOLS_NONCE = '__parlanceClientTools';
const CLIENT_TOOLS = Symbol('clientTools');

/** A caller the edge let in: its principal (given back to the private app, so `authorize` runs once per request). */
export interface Caller {
  principal: Principal | undefined;
}

/** A started (or joined) run: its id and a live reader of its events from the store. */
export interface OpenedRun {
  runId: string;
  events: (signal: AbortSignal) => AsyncIterable<StoredEvent>;
}

export interface FrontendRuns {
  readonly store: RunStore;
  /**
   * The server's edge, with the same options: Origin, `authorize`, `rateLimit`, content type, body
   * size, JSON depth and parse. Every adapter route passes it first; then `callerOf(c)` and `jsonOf(c)`.
   */
  readonly edge: MiddlewareHandler;
  /** The caller the edge let in. */
  callerOf(c: Context): Caller;
  /** Starts the run through `POST /chat` of the private app; a Response (4xx/5xx) refuses. */
  start(c: Context, caller: Caller, body: ChatRequestBody, clientTools?: ToolDefinition[]): Promise<OpenedRun | Response>;
  /** Opens a run the caller owns (`GET /runs/:id/events` of the private app), from its first event. */
  reopen(c: Context, caller: Caller, runId: string): Promise<OpenedRun | Response>;
  /** Cancels a run the caller owns. */
  cancel(c: Context, caller: Caller, runId: string): Promise<void>;
}

function executionContext(c: Context): { waitUntil(p: Promise<unknown>): void; passThroughOnException(): void } | undefined {
  try {
    return c.executionCtx as never;
  } catch {
    return undefined;
  }
}

/**
 * The options a frontend route takes: the same as `createParlanceApp`'s.
 *
 * @example
 * const options: FrontendRouteOptions = { models, run: engineRunner() };
 * app.route('/agui', createAgUiRoutes(options)).route('/ai', createAiSdkRoutes(options));
 */
export type FrontendRouteOptions = ParlanceServerOptions;

export function createFrontendRuns(options: ParlanceServerOptions): FrontendRuns {
  const store = options.store ?? createMemoryRunStore();
  // The private app gets the caller the edge already let in: `authorize` and the rate limit run once per request.
  const admitted = new WeakMap<Request, Principal | undefined>();
  const issued = new Map<string, ToolDefinition[]>();
  const baseOptions = options.clientOptions ?? clientOptionsSchema;
  const clientOptions = {
    safeParse(value: unknown) {
      const record = { ...((value ?? {}) as Record<string, unknown>) };
      const nonce = record[TOOLS_NONCE];
      const tools = typeof nonce === 'string' ? issued.get(nonce) : undefined;
      if (tools) {
        issued.delete(nonce as string);
        delete record[TOOLS_NONCE];
      }
      const result = baseOptions.safeParse(record);
      return result.success && tools ? { ...result, data: { ...result.data, [CLIENT_TOOLS]: tools } } : result;
    },
  } as unknown as ZodType<Record<string, unknown>>;
  const run: ChatRunner = Object.assign(
    (input: Parameters<ChatRunner>[0]) => {
      const tools = (input.options as Record<symbol, unknown>)[CLIENT_TOOLS] as ToolDefinition[] | undefined;
      const clean = { ...input, options: Object.fromEntries(Object.entries(input.options)) };
      if (tools) clean.clientTools = tools;
      return options.run(clean);
    },
    options.run.profile ? { profile: options.run.profile } : {},
  );
  const { basePath: _basePath, authorize, rateLimit, ...rest } = options;
  // One context for the adapter's edge and its private app: the edge's requests are never in `admitted`.
  const ctx = createServerContext({
    ...rest,
    // The AI SDK's and AG-UI's streams have no event that withdraws text (`step-restarted`): no takeover here.
    takeover: false,
    store,
    run,
    clientOptions,
    ...(authorize ? { authorize: (request: Request) => (admitted.has(request) ? admitted.get(request) : authorize(request)) } : {}),
    ...(rateLimit ? { rateLimit: (principal: Principal | undefined, request: Request) => (admitted.has(request) ? undefined : rateLimit(principal, request)) } : {}),
  });
  const app: Hono<any, any, any> = assembleParlanceApp(ctx);

  function forward(c: Context, caller: Caller, path: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(c.req.raw.headers);
    headers.delete('content-length');
    headers.delete('last-event-id');
    const request = new Request(new URL(path, c.req.url), { ...init, headers: { ...Object.fromEntries(headers), ...(init.headers as Record<string, string>) } });
    admitted.set(request, caller.principal);
    return Promise.resolve(app.fetch(request, c.env, executionContext(c) as never));
  }

  function opened(response: Response): OpenedRun | Response {
    const runId = response.headers.get('X-Parlance-Run-Id');
    if (!response.ok || !runId) return response;
    // The adapter reads the run from the store itself; the private app's own SSE body is not needed.
    void response.body?.cancel().catch(() => {});
    return { runId, events: (signal) => store.follow(runId, -1, signal) };
  }

  return {
    store,
    edge: ctx.edge,
    callerOf: (c) => ({ principal: principalOf<Principal | undefined>(c) }),
    async start(c, caller, body, clientTools) {
      let sent = body;
      let nonce: string | undefined;
      if (clientTools?.length) {
        nonce = crypto.randomUUID();
        issued.set(nonce, clientTools);
        sent = { ...body, options: { ...body.options, [TOOLS_NONCE]: nonce } };
      }
      try {
        const response = await forward(c, caller, '/chat', { method: 'POST', body: JSON.stringify(sent), headers: { 'content-type': 'application/json' } });
        return opened(response);
      } finally {
        if (nonce) issued.delete(nonce);
      }
    },
    async reopen(c, caller, runId) {
      return opened(await forward(c, caller, `/runs/${encodeURIComponent(runId)}/events`, { method: 'GET' }));
    },
    async cancel(c, caller, runId) {
      const response = await forward(c, caller, `/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' });
      await response.body?.cancel().catch(() => {});
    },
  };
}

/** The adapters' answer to an unexpected error: the code and a generic message only, the rest to `onError`. */
export function frontendErrorHandler(options: ParlanceServerOptions): (error: Error) => Response {
  return (error) => {
    const e = ParlanceError.isInstance(error) ? error : undefined;
    if (!e) options.onError?.(error, {});
    return errorResponse(e?.status ?? 500, e?.code ?? 'server_error', e ? e.message : 'Internal error');
  };
}
