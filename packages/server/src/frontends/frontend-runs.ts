/**
 * What both frontend adapters stand on: a private Parlance app built from the same options, so a
 * run started through the AI SDK or AG-UI route goes through exactly the checks of `POST /chat`
 * (Origin, content type, `authorize`, rate limit, body limits, client options, model allow-list,
 * the signed-thread trust boundary, no client system messages) and runs on the same runner and
 * the same store. The adapters only translate: their request into a `ChatRequestBody`, and the
 * run's stored protocol events into their own stream.
 */
import { type ChatRequestBody, ParlanceError, type ToolDefinition } from '@parlance/protocol';
import type { Context, Hono } from 'hono';
import type { ZodType } from 'zod';
import { errorResponse, jsonRefusal } from '../error-response.ts';
import { createParlanceApp } from '../handler.ts';
import { readBody } from '../read-body.ts';
import type { AuthorizeResult, ChatRunner, ParlanceServerOptions, Principal } from '../server-options.ts';
import { createMemoryRunStore } from '../memory-run-store.ts';
import { type AllowedOrigins, checkJsonContentType, checkOrigin } from '../request-guard.ts';
import { parseRequestJson } from '../strict-json.ts';
import type { RunStore, StoredEvent } from '../run-store.ts';
import { clientOptionsSchema } from '../schema.ts';

/**
 * How the adapters hand the browser's declared tools to the runner: the body's `options` names a
 * one-time nonce under this key, the private app's option validator swaps it for the tools (kept
 * in this process) under a symbol key JSON cannot carry. A nonce this process did not issue is
 * left in place, and the server's strict option schema refuses it.
 */
const TOOLS_NONCE = '__parlanceClientTools';
const CLIENT_TOOLS = Symbol('clientTools');

/** A caller the adapter let in: its principal, and the raw `authorize` result the private app is given back. */
export interface Caller {
  principal: Principal | undefined;
  result: AuthorizeResult;
}

/** A started (or joined) run: its id and a live reader of its events from the store. */
export interface OpenedRun {
  runId: string;
  events: (signal: AbortSignal) => AsyncIterable<StoredEvent>;
}

export interface FrontendRuns {
  readonly store: RunStore;
  /** The checks before a body is read: Origin (POST), content type (POST), `authorize`. A Response refuses. */
  admit(c: Context, method: 'POST' | 'GET'): Promise<Caller | Response>;
  /** `admit` for a POST, then the JSON body read and parsed with the server's size and depth limits. */
  admitJson(c: Context): Promise<{ caller: Caller; json: unknown } | Response>;
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
  const allowedOrigins: AllowedOrigins = options.allowedOrigins ?? (options.authorize ? [] : '*');
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxJsonDepth = options.maxJsonDepth ?? 64;
  // The private app gets the caller `admit` already authorized (authorize runs once per request).
  const admitted = new WeakMap<Request, AuthorizeResult>();
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
  const { basePath: _basePath, ...rest } = options;
  const app: Hono<any, any, any> = createParlanceApp({
    ...rest,
    store,
    run,
    clientOptions,
    ...(options.authorize ? { authorize: (request: Request) => (admitted.has(request) ? admitted.get(request) : options.authorize!(request)) } : {}),
  });

  function forward(c: Context, caller: Caller, path: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(c.req.raw.headers);
    headers.delete('content-length');
    headers.delete('last-event-id');
    const request = new Request(new URL(path, c.req.url), { ...init, headers: { ...Object.fromEntries(headers), ...(init.headers as Record<string, string>) } });
    admitted.set(request, caller.result);
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
    async admit(c, method) {
      if (method === 'POST') {
        const refused = checkOrigin(c.req.raw, allowedOrigins) ?? checkJsonContentType(c.req.raw);
        if (refused) return errorResponse(refused.status ?? 400, refused.code, refused.message);
      }
      if (!options.authorize) return { principal: undefined, result: undefined };
      const result = await options.authorize(c.req.raw);
      if (result instanceof Response) return result;
      if (!result) return errorResponse(401, 'authentication', 'Authentication required');
      return { principal: result, result };
    },
    async admitJson(c) {
      const caller = await this.admit(c, 'POST');
      if (caller instanceof Response) return caller;
      const text = await readBody(c.req.raw, maxBodyBytes);
      if (text instanceof Response) return text;
      try {
        return { caller, json: parseRequestJson(text, maxJsonDepth) };
      } catch (error) {
        return jsonRefusal(error);
      }
    },
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
