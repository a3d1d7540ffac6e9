/**
 * The Parlance API as this Worker serves it: the server package's Hono app under /api,
 * with the engine, the offered models and the mock provider wired in. The front Worker
 * and each run's Durable Object build one of these.
 */
import { resolveModel } from '@parlance/engine';
import { createParlanceApp, engineRunner } from '@parlance/server';
import { Hono } from 'hono';
import { mockProvider } from './mock-provider.ts';
import { offeredModels } from './models.ts';

export interface ApiOptions {
  /** Ids for runs, messages and threads (default: random). */
  generateId?: (prefix: string) => string;
}

export function notFound(): Response {
  return Response.json({ error: { code: 'not_found', message: 'No such route' } }, { status: 404 });
}

export function createApi(options: ApiOptions = {}): Hono<any> {
  const parlance = createParlanceApp({
    models: offeredModels,
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
    ...(options.generateId ? { generateId: options.generateId } : {}),
  });
  const app = new Hono();
  app.route('/api', parlance);
  // A mounted app's notFound covers only its own routes: answer every other path in the same JSON shape.
  app.notFound(() => notFound());
  return app;
}
