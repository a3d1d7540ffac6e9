/** `GET /models`: the models this server offers the caller (after `allowModel`). */
import { Hono } from 'hono';
import { principalOf } from '../edge/caller.ts';
import type { ServerContext } from '../server-context.ts';
import type { Principal } from '../server-options.ts';

/** The `GET /models` route of one app. */
export function modelsRoutes(ctx: ServerContext): Hono<any, any, any> {
  const { options } = ctx;
  const app = new Hono();
  app.get('/models', ctx.edge, async (c) => {
    const principal = principalOf<Principal | undefined>(c);
    const models = await ctx.offered(ctx.env(c));
    const visible = [];
    for (const m of models) if (!options.allowModel || (await options.allowModel(principal, m.id))) visible.push(m);
    return c.json({ models: visible });
  });
  return app;
}
