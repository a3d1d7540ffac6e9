// The page (built into dist/) and a Parlance server speaking the AI SDK's UI message stream at
// /api/chat, where useChat posts by default, on the demo's mock model and tools.
import { existsSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { demoServerOptions } from '@parlance/demo/server';
import { createAiSdkRoutes } from '@parlance/server/frontends';
import { Hono } from 'hono';

if (!existsSync('./dist/index.html')) {
  console.error('dist/ is missing: run `pnpm build` first.');
  process.exit(1);
}

const { mock: _mock, ...options } = demoServerOptions({ ollama: false, delayScale: Number(process.env.DELAY_SCALE ?? 1) });
const app = new Hono();
// How long a run outlives a closed connection (useChat's stop() only closes it) before it is cancelled.
const cancelAbandonedAfterMs = process.env.CANCEL_AFTER_MS ? Number(process.env.CANCEL_AFTER_MS) : undefined;
app.route('/api/chat', createAiSdkRoutes({ ...options, ...(cancelAbandonedAfterMs !== undefined ? { cancelAbandonedAfterMs } : {}) }));
app.get('/health', (c) => c.text('ok'));
app.use('/*', serveStatic({ root: './dist' }));

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' }, (info) => {
  console.log(`useChat on Parlance: http://127.0.0.1:${info.port}`);
});
