/** `GET /models`: the models this server offers the caller (after `allowModel`). */
import { Hono } from 'hono';
import type { ServerContext } from '../server-context.ts';

/** The `GET /models` route of one app. */
export function modelsRoutes(ctx: ServerContext): Hono<any, any, any> {
  const { options } = ctx;
  const app = new Hono();
  app.get('/models', async (c) => {
    const auth = await ctx.authorize(c.req.raw);
    if (auth instanceof Response) return auth;
    const models = await ctx.offered(ctx.env(c));
    const visible = [];
    for (const m of models) if (!options.allowModel || (await options.allowModel(auth.principal, m.id))) visible.push(m);
    return c.json({ models: visible });
  });
  return app;
}
