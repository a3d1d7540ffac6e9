// app/api/chat/[...path]/route.ts: the Parlance API in a Next.js App Router route.
// POST /api/chat/chat, GET /api/chat/models, GET /api/chat/runs/:runId/events,
// POST /api/chat/runs/:runId/cancel. Keys come from process.env, never from the browser.
import { catalogModels, createParlanceHandler, engineRunner } from '@parlance/server';

const handler = createParlanceHandler({
  basePath: '/api/chat',
  models: catalogModels(['anthropic:claude-sonnet-4-5', 'openai:gpt-5-mini']),
  run: engineRunner({ engine: { system: 'You are a helpful assistant.' } }),
});

export { handler as GET, handler as POST };
