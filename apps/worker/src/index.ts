/**
 * The Parlance chat API as a Cloudflare Worker, under /api:
 *
 *   POST /api/chat                 start or continue a run (SSE)
 *   GET  /api/runs/:runId/events   resume from Last-Event-ID, then follow live
 *   POST /api/runs/:runId/cancel   cancel a run
 *   GET  /api/models               the models offered
 *
 * The plain `createParlanceApp` as the Worker's fetch. The request that starts a run calls
 * the model; the run's events, its cancel flag and its lease live in a Durable Object
 * (`ParlanceRunStoreObject`), which any other request reaches. Keys are Worker bindings
 * (secrets) read per request from the environment; nothing about them goes to the browser.
 */
import { ParlanceRunStoreObject } from '@parlance/server/durable-objects';
import type { Hono } from 'hono';
import { createApi, type WorkerEnv } from './api.ts';

export { ParlanceRunStoreObject };

// One app per isolate: bindings are the same objects for every request an isolate serves.
let app: { env: WorkerEnv; api: Hono<any> } | undefined;

export default {
  fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Response | Promise<Response> {
    if (app?.env.PARLANCE_RUNS !== env.PARLANCE_RUNS) app = { env, api: createApi(env) };
    return app.api.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<WorkerEnv>;
