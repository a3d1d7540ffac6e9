/**
 * The Parlance HTTP surface: a Hono app whose `fetch` is a plain
 * `(Request) => Promise<Response>`, so it runs unchanged on Workers, Node, Bun,
 * Deno and as a Next.js or Remix route handler. Provider keys are read from the
 * runtime's environment (Workers bindings or process.env), never from requests.
 *
 * Routes (mount under any prefix with `app.route('/api', parlance)`), one file each in `routes/`:
 *   POST /chat                 start or continue a run; SSE of protocol events    routes/chat.ts
 *   GET  /runs/:runId/events   resume from Last-Event-ID, then follow live         routes/runs.ts
 *   POST /runs/:runId/cancel   abort the run upstream; it ends with chat-finish 'cancelled'
 *   GET  /models               the models this server offers                       routes/models.ts
 *   POST /files                store a file, answer its signed reference (with `files`) routes/files.ts
 */
import { Hono } from 'hono';
import { errorHandler, notFoundResponse } from './error-response.ts';
import { chatRoutes } from './routes/chat.ts';
import { filesRoutes } from './routes/files.ts';
import { modelsRoutes } from './routes/models.ts';
import { runsRoutes } from './routes/runs.ts';
import { createServerContext, type ServerContext } from './server-context.ts';
import type { ParlanceServerOptions } from './server-options.ts';

export type { AuthorizeResult, ChatRunInput, ChatRunner, Env, ErrorContext, FinishedRun, ParlanceServerOptions, Principal } from './server-options.ts';

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
  return assembleParlanceApp(createServerContext(options));
}

/** The app of a server context (the frontend adapters build their private one from theirs). */
export function assembleParlanceApp(ctx: ServerContext): Hono<any, any, any> {
  const { options } = ctx;
  const app = options.basePath ? new Hono().basePath(options.basePath) : new Hono();
  app.route('/', chatRoutes(ctx));
  app.route('/', runsRoutes(ctx));
  app.route('/', modelsRoutes(ctx));
  if (options.files) app.route('/', filesRoutes(ctx, options.files));
  app.notFound(notFoundResponse);
  // Never leak a stack trace or upstream details: the code and a generic message only; the rest goes to onError.
  app.onError(errorHandler(ctx.reportError));
  return app;
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
