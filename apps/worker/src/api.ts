/**
 * The Parlance API as this Worker serves it: the server package's Hono app under /api,
 * with the engine, the offered models and the mock provider wired in, and runs kept in
 * Durable Objects (`createDurableObjectRunStore`), so a resume or a cancel arriving as
 * another request, in any location, reaches the run.
 */
import { resolveModel } from '@parlance/engine';
import { createParlanceApp, engineRunner } from '@parlance/server';
import { createDurableObjectRunStore, type RunObjectNamespace } from '@parlance/server/durable-objects';
import { Hono } from 'hono';
import { mockProvider } from './mock-provider.ts';
import { offeredModels } from './models.ts';

/** The bindings this Worker uses; provider keys are secrets among the rest. */
export interface WorkerEnv {
  PARLANCE_RUNS: RunObjectNamespace;
  [name: string]: unknown;
}

export function notFound(): Response {
  return Response.json({ error: { code: 'not_found', message: 'No such route' } }, { status: 404 });
}

export function createApi(env: WorkerEnv): Hono<any> {
  const parlance = createParlanceApp({
    models: offeredModels,
    store: createDurableObjectRunStore({ namespace: env.PARLANCE_RUNS }),
    run: engineRunner({
      // Built per run: the mock provider (used only when it is offered) is fresh for each one.
      engine: () => {
        const mock = mockProvider();
        return {
          system: 'You are a helpful assistant. Answer concisely.',
          resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock } }),
        };
      },
    }),
  });
  const app = new Hono();
  app.route('/api', parlance);
  app.get('/', (c) => c.text('Parlance worker: POST /api/chat, GET /api/models'));
  // A mounted app's notFound covers only its own routes: answer every other path in the same JSON shape.
  app.notFound(() => notFound());
  return app;
}
