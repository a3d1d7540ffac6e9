import { Hono } from 'hono';
import * as z from 'zod/mini';
import { tool } from '@parlance/engine';
import { catalogModels, createParlanceApp, engineRunner } from '@parlance/server';

// zod/mini keeps a Worker bundle small; it needs its JSON Schema spelled out (the full zod derives it).
const input = z.object({ city: z.string() });
const weather = tool({ name: 'weather', input, jsonSchema: z.toJSONSchema(input), execute: async ({ city }) => ({ city, tempC: 21 }) });

// Provider keys and PARLANCE_SECRET (signs tool calls, see SECURITY.md) come from the server's environment, never from the browser.
export const app = new Hono().route('/api', createParlanceApp({
  models: catalogModels(['anthropic:claude-sonnet-4-5']),
  run: engineRunner({ engine: { tools: [weather] } }),
}));
export default app;
