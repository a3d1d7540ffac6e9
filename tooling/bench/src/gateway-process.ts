/**
 * Parlance's gateway in its own process for gateway-portkey.bench.ts (as Portkey's runs in its own):
 * route `openai` to the mock Chat Completions upstream (MOCK_OPENAI), `anthropic` to the mock
 * Messages upstream (MOCK_ANTHROPIC); prints nothing; tells its port over IPC.
 */
import { serve } from '@hono/node-server';
import { createGateway, staticKeys } from '@parlance/server/gateway';

const { MOCK_OPENAI, MOCK_ANTHROPIC } = process.env;
if (!process.send || !MOCK_OPENAI || !MOCK_ANTHROPIC) throw new Error('gateway-process.ts is forked by gateway-portkey.bench.ts');

const app = createGateway({
  routes: {
    openai: { provider: 'openai', dialect: 'openai_completions', model: 'm', baseURL: `${MOCK_OPENAI}/v1`, apiKey: 'k', retry: false },
    anthropic: { provider: 'anthropic', model: 'm', baseURL: `${MOCK_ANTHROPIC}/v1`, apiKey: 'k', retry: false },
  },
  authorize: staticKeys({ 'sk-bench-gateway-key': { id: 'bench' } }),
});
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => process.send!({ type: 'ready', port: info.port }));
