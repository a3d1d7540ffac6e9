// app/api/chat/[...path]/route.ts: the Parlance API in a Next.js App Router route.
// POST /api/chat/chat, GET /api/chat/models, GET /api/chat/runs/:runId/events,
// POST /api/chat/runs/:runId/cancel. Keys come from process.env, never from the browser.
import { createParlanceHandler } from '@parlance/server';
import { models, run, secret } from '@/lib/parlance';

const handler = createParlanceHandler({ basePath: '/api/chat', models, run, secret });

export { handler as GET, handler as POST };
