// A Parlance server as a Bun or Deno app writes it: the real engine and `createParlanceApp` on
// the runtime's own HTTP server with its defaults (Bun.serve's idleTimeout is 10 s). The model
// (the mock provider, in this process) goes silent for SILENT_MS before its first event, as a
// long reasoning step does; the heartbeat must keep the stream open through it.
import { defineProvider, resolveModel } from '@parlance/engine';
import { mockProviderServer } from '@parlance/testing';
import { createParlanceApp, engineRunner } from '../src/index.ts';

const silentMs = Number((globalThis as { process?: { env: Record<string, string> } }).process?.env.SILENT_MS ?? 12_000);
const upstream = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: ['After ', 'the ', 'silence.'], firstEventDelayMs: silentMs }] });
const mock = defineProvider(
  { id: 'mock', baseURL: 'http://mock.invalid', auth: 'none', dialect: 'anthropic_messages', models: { model: { contextWindow: 32_000, maxOutputTokens: 4_096, input: ['text'] } } },
  { fetch: async (input, init) => upstream(new Request(input, init)), retry: false },
);
const app = createParlanceApp({
  models: [{ id: 'mock:model', provider: 'mock' }],
  env: { PARLANCE_SECRET: 'runtime-test-secret-0123456789abcdef0123' },
  run: engineRunner({ engine: { resolveModel: (spec, options) => resolveModel(spec, { ...options, providers: { mock } }) } }),
});

declare const Bun: { serve(options: { hostname: string; port: number; fetch: (request: Request) => Response | Promise<Response> }): { port: number } } | undefined;
declare const Deno: { serve(options: { hostname: string; port: number; onListen: (addr: { port: number }) => void }, handler: (request: Request) => Response | Promise<Response>): unknown } | undefined;

if (typeof Bun !== 'undefined') {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.fetch(request) });
  console.log(`listening ${server.port}`);
} else if (typeof Deno !== 'undefined') {
  Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(`listening ${port}`) }, (request) => app.fetch(request));
}
