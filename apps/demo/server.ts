// Production-style server: the demo API under /api plus the built page from dist/
// (`pnpm start` builds it first). Keys are read from this process's environment only.
import { existsSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { checkConfig } from '@parlance/server';
import { compress } from 'hono/compress';
import { createDemoApi } from './src/server/api.ts';
import { demoMcpTools } from './src/server/demo-mcp.ts';

if (!existsSync('./dist/index.html')) {
  console.error('dist/ is missing: run `pnpm build` (or `pnpm start`, which builds first).');
  process.exit(1);
}

// The demo MCP server starts with the first chat that asks for tools (DEMO_MCP=0 leaves it off).
const { app, options } = createDemoApi(process.env.DEMO_MCP === '0' ? {} : { extraTools: [demoMcpTools()] });
// The configuration (signing keys) checked once, at start: a bad key stops the server with its message.
try {
  checkConfig(options);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
// The page and its assets go out gzipped (the script is ~480 kB, ~150 kB gzipped). Only here, after
// the API's routes: those answered already, so their event streams are never buffered by a compressor.
app.use('/*', compress(), serveStatic({ root: './dist' }));


const port = Number(process.env.PORT ?? 4321);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  console.log(`Parlance demo on http://127.0.0.1:${info.port}`);
});
