// A Parlance server for the frontend adapters' tests: the real engine with two server tools
// (get_time runs at once, transfer_money needs approval), `authorize` by header, a signing secret,
// and the mock provider in the Anthropic Messages wire format. Both adapters are mounted on it
// with the same options, as an app would.
import { serve } from '@hono/node-server';
import { defineProvider, resolveModel, tool } from '@parlance/engine';
import { mockProviderServer, type ScriptedTurn } from '@parlance/testing';
import { Hono } from 'hono';
import { vi } from 'vitest';
import { createAgUiRoutes } from '../src/frontends/ag-ui.ts';
import { type AiSdkRoutesOptions, createAiSdkRoutes } from '../src/frontends/index.ts';
import { engineRunner } from '../src/engine-runner.ts';
import { createMemoryRunStore } from '../src/memory-run-store.ts';

export const SECRET = 'frontends-test-secret-0123456789abcdef0123';

/** `engine` adds engine options (e.g. `maxSteps`) to the runner's. */
export function frontendServer(script: ScriptedTurn[], overrides: Partial<AiSdkRoutesOptions> = {}, engine: { maxSteps?: number } = {}) {
  const upstream = mockProviderServer({ dialect: 'anthropic_messages', script });
  const mock = defineProvider(
    { id: 'mock', baseURL: 'http://mock.invalid', auth: 'none', dialect: 'anthropic_messages', models: { model: { contextWindow: 32_000, maxOutputTokens: 4_096, input: ['text'], reasoning: true } } },
    { fetch: async (input, init) => upstream(new Request(input, init)), retry: false },
  );
  const getTime = vi.fn(() => ({ time: '12:00' }));
  const transfer = vi.fn((input: unknown) => { const { to, amount } = input as { to: string; amount: number }; return `sent ${amount} to ${to}`; });
  const tools = [
    tool({ name: 'get_time', input: { type: 'object', properties: {} }, execute: getTime }),
    tool({ name: 'transfer_money', input: { type: 'object', properties: { to: { type: 'string' }, amount: { type: 'number' } }, required: ['to', 'amount'] }, needsApproval: true, execute: transfer }),
    // A client tool: no execute, the browser answers it (addToolOutput).
    tool({ name: 'share_location', input: { type: 'object', properties: {} } }),
  ];
  const options: AiSdkRoutesOptions = {
    models: [{ id: 'mock:model', provider: 'mock' }],
    env: { PARLANCE_SECRET: SECRET },
    authorize: (r) => (r.headers.get('x-user') ? { id: r.headers.get('x-user')! } : undefined),
    run: engineRunner({ engine: { ...engine, tools, resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock } }) } }),
    store: createMemoryRunStore(),
    onError: () => {},
    ...overrides,
  };
  const app = new Hono();
  app.route('/api/chat', createAiSdkRoutes({ cancelAbandonedAfterMs: 50, ...options }));
  app.route('/api/ag-ui', createAgUiRoutes(options));
  return { app, upstream, getTime, transfer, options };
}

/** Serves an app on 127.0.0.1 on a free port. */
export async function listen(app: Hono): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/** `fetch` whose response bodies arrive cut again at seeded random byte boundaries (1 to 7 bytes a chunk). */
export function cutFetch(base: (input: RequestInfo | URL, init?: RequestInit) => Response | Promise<Response>, seed: number): typeof fetch {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        for (let at = 0; at < value.length; ) {
          const size = 1 + Math.floor(random() * 7);
          controller.enqueue(value.slice(at, at + size));
          at += size;
        }
      },
      cancel: () => reader.cancel(),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }) as typeof fetch;
}
