import { Hono } from 'hono';
import * as z from 'zod/mini';
import { tool } from '@parlance/engine';
import { anthropic } from '@parlance/engine/providers/anthropic';
import { createParlanceApp, engineRunnerWith, modelEntries } from '@parlance/server';

// zod/mini keeps a Worker bundle small; it needs its JSON Schema spelled out (the full zod derives it).
const input = z.object({ city: z.string() });
const weather = tool({ name: 'weather', input, jsonSchema: z.toJSONSchema(input), execute: async ({ city }) => ({ city, tempC: 21 }) });

// Provider keys and PARLANCE_SECRET (signs tool calls, see SECURITY.md) come from the server's environment, never from the browser.
export const app = new Hono().route('/api', createParlanceApp({
  // Each provider has its own entry point: the bundle holds Anthropic's dialect and models, no other provider's.
  models: modelEntries([anthropic.model('claude-sonnet-4-5')]),
  run: engineRunnerWith([anthropic], { engine: { tools: [weather] } }),
}));
export default app;
