import { Hono } from 'hono';
import { z } from 'zod';
import { tool } from '@parlance/engine';
import { catalogModels, createParlanceApp, engineRunner } from '@parlance/server';

const weather = tool({ name: 'weather', input: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, tempC: 21 }) });

// Provider keys and PARLANCE_SECRET (signs tool calls, see SECURITY.md) come from the server's environment, never from the browser.
export const app = new Hono().route('/api', createParlanceApp({
  models: catalogModels(['anthropic:claude-sonnet-4-5']),
  run: engineRunner({ engine: { tools: [weather] } }),
}));
export default app;
