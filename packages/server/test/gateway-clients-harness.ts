import { type ServerType, serve } from '@hono/node-server';
import { type DialectId, getDialect } from '@parlance/dialects';
import type { ModelSpec } from '@parlance/engine';
import type { Part } from '@parlance/protocol';
import { type MockProviderServer, type ScriptedTurn, serveMockProvider } from '@parlance/testing';
import { expect } from 'vitest';
import { createGateway } from '../src/gateway/gateway.ts';
import { staticKeys } from '../src/gateway/keys.ts';
import { createMemoryRunStore } from '../src/memory-run-store.ts';
import { PROVIDER } from './gateway-providers.ts';

/**
 * One gateway on 127.0.0.1 in front of a mock provider of each dialect, for the tests that run
 * the clients people use (gateway-clients*.test.ts) through it. The route `to-<dialect>` answers
 * text, parallel tool calls, or structured output by the request; `limited-<dialect>` answers 429.
 */

export const CLIENT_KEY = 'gw-clients-key';
export const USAGE = { inputTokens: 21, outputTokens: 9 };
export const FORECAST = { city: 'Paris', celsius: 18 };
export const FORECAST_SCHEMA = { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'], additionalProperties: false } as const;
export const RESULTS: Record<string, string> = { weather: '18C and sunny', time: '14:05' };
export const TOOL_SCHEMAS = {
  weather: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  time: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'], additionalProperties: false },
} as const;
export const UPSTREAMS: DialectId[] = ['openai_completions', 'anthropic_messages', 'google_gemini', 'ollama_chat', 'openai_responses'];

/** Text, or parallel tool calls when tools are offered and no result came back yet, or an answer naming the results. */
export function script(request: { messages: { role: string; parts: Part[] }[]; tools?: { name: string }[]; output?: unknown }): ScriptedTurn {
  // Structured output: asked for by a response format (json_schema, Gemini's responseJsonSchema, Ollama's
  // format), or by the one tool a client offers in its place (the AI SDK's `json` tool).
  if (request.output) return { text: JSON.stringify(FORECAST), usage: USAGE };
  if (request.tools?.length === 1 && request.tools[0]!.name === 'json') return { toolCalls: [{ id: 'call_j', name: 'json', input: FORECAST }], usage: USAGE };
  const results = request.messages.flatMap((m) => m.parts).filter((p): p is Extract<Part, { type: 'tool-result' }> => p.type === 'tool-result');
  if (results.length > 0) return { text: `Done: ${results.map((r) => (typeof r.output === 'string' ? r.output : JSON.stringify(r.output))).join(' | ')}`, usage: USAGE };
  if (request.tools?.length) return { toolCalls: [{ id: 'call_w', name: 'weather', input: { city: 'Paris' } }, { id: 'call_t', name: 'time', input: { zone: 'CET' } }], usage: USAGE };
  return { text: 'Hello there.', usage: USAGE };
}

/** A running gateway with its mock providers. */
export interface ClientsGateway {
  url: string;
  mocks: Map<DialectId, MockProviderServer>;
  close(): Promise<void>;
}

/** Starts the mock providers and the gateway in front of them. */
export async function startClientsGateway(): Promise<ClientsGateway> {
  const routes: Record<string, ModelSpec> = {};
  const mocks = new Map<DialectId, MockProviderServer>();
  for (const dialect of UPSTREAMS) {
    const mock = await serveMockProvider({
      dialect,
      script: (recorded) => {
        const decoded = getDialect(dialect).decodeRequest(recorded.body, { model: recorded.model ?? 'm', stream: true }).request;
        return decoded.model === 'limited' ? { error: { code: 'rate_limited', message: 'Slow down', status: 429 } } : script(decoded);
      },
    });
    mocks.set(dialect, mock);
    routes[`to-${dialect}`] = { ...PROVIDER[dialect], model: 'm', baseURL: mock.url, apiKey: 'p', retry: false };
    routes[`limited-${dialect}`] = { ...PROVIDER[dialect], model: 'limited', baseURL: mock.url, apiKey: 'p', retry: false };
  }
  const app = createGateway({ routes, authorize: staticKeys({ [CLIENT_KEY]: { id: 'clients' } }), store: createMemoryRunStore() });
  const { server, url } = await new Promise<{ server: ServerType; url: string }>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve({ server: started, url: `http://127.0.0.1:${info.port}` }));
  });
  return {
    url,
    mocks,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...mocks.values()].map((mock) => mock.close()));
    },
  };
}

/** The provider's last request, decoded by its dialect. */
export function lastRequestAt(gateway: ClientsGateway, dialect: DialectId) {
  const last = gateway.mocks.get(dialect)!.requests.at(-1)!;
  return getDialect(dialect).decodeRequest(last.body, { model: last.model ?? 'm', stream: true }).request;
}

/** The tool results the provider got on its last call, paired with the calls they answer, sorted by tool name. */
export function lastResultsAt(gateway: ClientsGateway, dialect: DialectId): { name: string; output: string }[] {
  const parts = lastRequestAt(gateway, dialect).messages.flatMap((m) => m.parts);
  const calls = parts.filter((p): p is Extract<Part, { type: 'tool-call' }> => p.type === 'tool-call');
  return parts
    .filter((p): p is Extract<Part, { type: 'tool-result' }> => p.type === 'tool-result')
    .map((r) => ({ name: calls.find((c) => c.id === r.toolCallId)?.name ?? `unpaired:${r.name}`, output: typeof r.output === 'string' ? r.output : JSON.stringify(r.output) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** What every tool round trip must have delivered to the provider (as `lastResultsAt` lists it). */
export const PAIRED_RESULTS = [
  { name: 'time', output: expect.stringContaining('14:05') },
  { name: 'weather', output: expect.stringContaining('18C and sunny') },
];
