/**
 * The Parlance chat API as a Cloudflare Worker, under /api:
 *
 *   POST /api/chat                 start or continue a run (SSE)
 *   GET  /api/runs/:runId/events   resume from Last-Event-ID, then follow live
 *   POST /api/runs/:runId/cancel   cancel a run
 *   GET  /api/models               the models offered
 *
 * Chats, resumes and cancels go to the run's Durable Object (see run-object.ts); the
 * rest is answered here. Keys are Worker bindings (secrets) read per request from the
 * environment; nothing about them is sent to the browser.
 */
import { Hono } from 'hono';
import { createApi, notFound } from './api.ts';
import { ParlanceRun, RUN_ID_PREFIX, type WorkerEnv } from './run-object.ts';

export { ParlanceRun };

const api = createApi();
const app = new Hono<{ Bindings: WorkerEnv }>();

app.get('/', (c) => c.text('Parlance worker: POST /api/chat, GET /api/models'));

app.post('/api/chat', async (c) => {
  // Peek at the body for the client's request id; anything malformed is answered (400) by the API itself.
  let clientRequestId: unknown;
  try {
    clientRequestId = ((await c.req.raw.clone().json()) as { clientRequestId?: unknown } | null)?.clientRequestId;
  } catch {
    clientRequestId = undefined;
  }
  if (typeof clientRequestId !== 'string' || clientRequestId === '' || clientRequestId.length > 200) {
    return api.fetch(c.req.raw, c.env);
  }
  const runs = c.env.PARLANCE_RUNS;
  return runs.get(runs.idFromName(`chat:${clientRequestId}`)).fetch(c.req.raw);
});

app.all('/api/runs/:runId/*', async (c) => {
  const runId = c.req.param('runId');
  let id: DurableObjectId;
  try {
    if (!runId.startsWith(RUN_ID_PREFIX)) throw new Error('not a run id');
    id = c.env.PARLANCE_RUNS.idFromString(runId.slice(RUN_ID_PREFIX.length));
  } catch {
    // Not an id this Worker made: the same 404 the API gives for a run it does not know.
    return Response.json({ error: { code: 'not_found', message: `No run "${runId}"` } }, { status: 404 });
  }
  return c.env.PARLANCE_RUNS.get(id).fetch(c.req.raw);
});

app.all('/api/*', (c) => api.fetch(c.req.raw, c.env));
app.notFound(() => notFound());

export default app;
