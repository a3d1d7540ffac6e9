/**
 * A Parlance server on 127.0.0.1 (a free port) whose real engine calls the OpenAI-compatible
 * mock provider at `mockUrl` over HTTP, runs kept in `store`: the server the multi-instance
 * tests and the benches fork into processes of its own.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type EngineOptions, openaiCompatible, resolveModel } from '@parlance/engine';
import { createParlanceApp, engineRunner, type ParlanceServerOptions, type RunStore } from '../src/index.ts';

export interface MockProviderServerOptions {
  mockUrl: string;
  store: RunStore;
  /** The model id the app offers, `mock:<model>`. */
  model: string;
  /** Called with the port once the server listens. */
  onReady: (port: number) => void;
  /** More engine settings (e.g. `maxQueuedBytes`, `tools`). */
  engine?: { maxQueuedBytes?: number; tools?: EngineOptions['tools'] };
  /** More app settings (e.g. `takeover`, `handOver`). */
  app?: Pick<ParlanceServerOptions, 'takeover' | 'handOver' | 'onError' | 'secret'>;
}

export function serveOnMockProvider({ mockUrl, store, model, onReady, engine, app: more }: MockProviderServerOptions): Server {
  const provider = openaiCompatible({ id: 'mock', baseURL: `${mockUrl}/v1`, apiKeyEnv: 'MOCK_API_KEY' });
  const app = createParlanceApp({
    models: [{ id: `mock:${model}`, provider: 'mock' }],
    env: { MOCK_API_KEY: 'sk-test-not-a-secret' },
    store,
    run: engineRunner({ engine: { ...engine, resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock: provider } }) } }),
    ...more,
  });
  // Without createServer options, serve() makes a plain node:http server.
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  server.once('listening', () => onReady((server.address() as AddressInfo).port));
  return server;
}
