/**
 * The four official SDKs (five APIs) as real clients of the gateway over HTTP on 127.0.0.1,
 * each routed to a mock provider of every dialect: 5 x 5, streamed and not. Every scenario
 * arrives as the SDK's own typed objects and errors: text with usage, reasoning (whose
 * signature or encrypted content survives a second turn through the gateway), parallel tool
 * calls with their results on the next turn, a length stop, an upstream 429 and a
 * mid-stream error. One gateway and five mock providers for the whole file; the route name
 * picks the provider and the scenario.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { serve, type ServerType } from '@hono/node-server';
import { DIALECT_IDS, getDialect, type DialectId } from '@parlance/dialects';
import type { ModelSpec } from '@parlance/engine';
import type { Part } from '@parlance/protocol';
import { serveMockProvider, type MockProviderServer } from '@parlance/testing';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCENARIOS, SCENARIO_NAMES, type ScenarioName } from '../../../testing/test/scenarios.ts';
import {
  CARRIES_SIGNATURE,
  SDK_DIALECT,
  SDKS,
  sdkTurn,
  withToolResults,
  withUserText,
  type Observed,
  type Sdk,
} from '../../../testing/test/sdk-clients.ts';
import { expectScenarioRead } from '../../../testing/test/sdk-expectations.ts';
import { createGateway, type GatewayFinish } from './gateway.ts';
import { staticKeys } from './keys.ts';
import { PROVIDER } from '../../test/gateway-providers.ts';

// Real HTTP and real SDKs on a shared 2-core machine: generous per-test time, never a timing assertion.
vi.setConfig({ testTimeout: 30_000 });

/** Providers whose wire carries reasoning's opaque state (the mock sends the scripted signature there). */
const SIGNS: Record<DialectId, boolean> = { openai_completions: false, openai_responses: true, anthropic_messages: true, google_gemini: true, ollama_chat: false };
/** Providers whose tool calls carry ids (Gemini 2.x and Ollama send none). */
const CALL_IDS: Record<DialectId, boolean> = { openai_completions: true, openai_responses: true, anthropic_messages: true, google_gemini: false, ollama_chat: false };

const KEY = 'gw-test-key';
const PROVIDER_SECRET = 'provider-secret-never-leaves';
const MATRIX_SCENARIOS = ['text', 'reasoning', 'parallel tools', 'length stop', 'http 429', 'mid-stream error with usage'] as const satisfies readonly ScenarioName[];

const mocks = new Map<DialectId, MockProviderServer>();
const finishes: GatewayFinish[] = [];
let server: ServerType;
let gatewayURL = '';

const routeName = (provider: DialectId, scenario: ScenarioName) => `${provider}.${SCENARIO_NAMES.indexOf(scenario)}`;

beforeAll(async () => {
  for (const dialect of DIALECT_IDS) {
    mocks.set(dialect, await serveMockProvider({ dialect, script: (request) => SCENARIOS[SCENARIO_NAMES[Number(/scenario-(\d+)/.exec(request.model ?? '')?.[1] ?? 0)]!] }));
  }
  const routes: Record<string, ModelSpec> = {};
  for (const dialect of DIALECT_IDS) {
    for (const scenario of SCENARIO_NAMES) {
      routes[routeName(dialect, scenario)] = {
        ...PROVIDER[dialect],
        model: `scenario-${SCENARIO_NAMES.indexOf(scenario)}`,
        baseURL: mocks.get(dialect)!.url,
        apiKey: PROVIDER_SECRET,
        // The caller's SDK retries by itself; the gateway passes the provider's answer on.
        retry: false,
      };
    }
  }
  const app = createGateway({ routes, authorize: staticKeys({ [KEY]: { id: 'team-a' } }), onFinish: (finish) => void finishes.push(finish) });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      gatewayURL = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([...mocks.values()].map((mock) => mock.close()));
});

function turn(sdk: Sdk, provider: DialectId, scenario: ScenarioName, stream: boolean, history?: unknown[]): Promise<Observed> {
  return sdkTurn(sdk, { baseURL: gatewayURL, apiKey: KEY, model: routeName(provider, scenario), stream, tools: scenario === 'parallel tools', ...(history ? { history } : {}) });
}

/** The last request the provider received, decoded in its own dialect. */
function lastProviderRequest(provider: DialectId) {
  const requests = mocks.get(provider)!.requests;
  const last = requests[requests.length - 1]!;
  expect(last.headers.authorization ?? last.headers['x-api-key'] ?? last.headers['x-goog-api-key']).toContain(PROVIDER_SECRET);
  return { body: last.body, request: getDialect(provider).decodeRequest(last.body, { model: last.model ?? 'm', stream: true }).request };
}

function checkFirstTurn(sdk: Sdk, provider: DialectId, scenario: (typeof MATRIX_SCENARIOS)[number], stream: boolean, seen: Observed): void {
  expectScenarioRead(sdk, scenario, stream, seen);
  switch (scenario) {
    case 'reasoning':
      if (CARRIES_SIGNATURE[sdk] && SIGNS[provider]) {
        // The provider's own signature for its own SDK; sealed in the caller's slot across dialects.
        if (SDK_DIALECT[sdk] === provider) expect(seen.signature).toBe('sig_EqQBCkgIBxABGAIiQL');
        else expect(seen.signature).toMatch(/^parlance\.1\./);
      }
      return;
    case 'parallel tools':
      if (CALL_IDS[provider] && sdk !== 'ollama' && sdk !== 'gemini') expect(seen.toolCalls.map((c) => c.id)).toEqual(['call_weather_1', 'call_time_2']);
      return;
    case 'mid-stream error with usage':
      // The status is the caller's provider's for what the upstream said (503/529 overloaded, 500 for a bare message).
      if (!stream) expect(seen.error?.status).toBeGreaterThanOrEqual(500);
      return;
  }
}

describe.each(SDKS)('the %s SDK through the gateway', (sdk) => {
  describe.each(DIALECT_IDS)('to a %s provider', (provider) => {
    for (const stream of [true, false]) {
      const mode = stream ? 'streamed' : 'not streamed';

      it(`${mode}: text and usage, reasoning, parallel tools, a length stop, an upstream 429, a mid-stream error`, async () => {
        for (const scenario of MATRIX_SCENARIOS) {
          const seen = await turn(sdk, provider, scenario, stream);
          try {
            checkFirstTurn(sdk, provider, scenario, stream, seen);
          } catch (error) {
            throw new Error(`${scenario}: ${(error as Error).message}\n${JSON.stringify(seen).slice(0, 600)}`);
          }
        }
        const mine = finishes.filter((f) => f.principal.id === 'team-a' && f.model === routeName(provider, 'text') && f.dialect === SDK_DIALECT[sdk] && f.stream === stream);
        expect(mine.at(-1)).toMatchObject({ provider: PROVIDER[provider].provider, upstreamDialect: provider, finishReason: 'stop', usage: { inputTokens: 21, outputTokens: 9 } });
      });

      it(`${mode}: reasoning state survives a second turn, where the caller's API can carry it`, async () => {
        const first = await turn(sdk, provider, 'reasoning', stream);
        expect(first.error).toBeUndefined();
        const second = await turn(sdk, provider, 'reasoning', stream, withUserText(sdk, first.history, 'And then?'));
        expect(second.error).toBeUndefined();
        const { body } = lastProviderRequest(provider);
        if (SIGNS[provider] && CARRIES_SIGNATURE[sdk]) {
          // The provider gets back exactly the opaque state it produced.
          expect(JSON.stringify(body)).toContain('sig_EqQBCkgIBxABGAIiQL');
          expect(JSON.stringify(body)).not.toContain('parlance.1.');
        }
        // The thinking text goes back wherever the caller's history holds it (the Chat Completions SDK keeps none).
        if (sdk !== 'openai-chat') expect(JSON.stringify(body)).toContain('The user greets me; answer briefly.');
      });

      it(`${mode}: parallel tool calls, then both results reach the provider paired with their calls`, async () => {
        const first = await turn(sdk, provider, 'parallel tools', stream);
        expect(first.toolCalls).toHaveLength(2);
        const results: Record<string, unknown> = { weather: { temp: 18, sky: 'sunny' }, time: { now: '14:05' } };
        const second = await turn(sdk, provider, 'parallel tools', stream, withToolResults(sdk, first, (call) => results[call.name]));
        expect(second.error).toBeUndefined();
        const { request } = lastProviderRequest(provider);
        const parts = request.messages.flatMap((m) => m.parts);
        const calls = parts.filter((p): p is Extract<Part, { type: 'tool-call' }> => p.type === 'tool-call');
        const answers = parts.filter((p): p is Extract<Part, { type: 'tool-result' }> => p.type === 'tool-result');
        expect(calls.map((c) => c.name)).toEqual(['weather', 'time']);
        if (provider === 'google_gemini' && CARRIES_SIGNATURE[sdk]) {
          // Gemini signed the turn's first function call; that signature comes back on that call.
          expect(calls.map((c) => (c.providerState?.google_gemini as { thoughtSignature?: string } | undefined)?.thoughtSignature)).toEqual(['sig_tools_0001', undefined]);
        }
        expect(answers).toHaveLength(2);
        for (const answer of answers) {
          const call = calls.find((c) => c.id === answer.toolCallId);
          expect(call, `result ${answer.toolCallId} answers a call`).toBeDefined();
          const output = typeof answer.output === 'string' ? JSON.parse(answer.output) : answer.output;
          expect(JSON.stringify(output)).toContain(JSON.stringify(results[call!.name]).slice(1, -1));
        }
      });
    }
  });
});

describe('the gateway toward callers', () => {
  it('refuses a missing or wrong key in the caller format, and lists models in OpenAI shape', async () => {
    const anthropic = await sdkTurn('anthropic', { baseURL: gatewayURL, apiKey: 'wrong', model: routeName('anthropic_messages', 'text'), stream: false });
    expect(anthropic.error).toMatchObject({ name: 'AuthenticationError', status: 401 });
    const gemini = await sdkTurn('gemini', { baseURL: gatewayURL, apiKey: 'wrong', model: routeName('google_gemini', 'text'), stream: true });
    expect(gemini.error).toMatchObject({ name: 'ApiError', status: 401 });
    const list = await fetch(`${gatewayURL}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    const body = (await list.json()) as { object: string; data: { id: string; object: string }[] };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toContain(routeName('ollama_chat', 'text'));
    expect(body.data[0]).toMatchObject({ object: 'model', owned_by: expect.any(String) });
  });

  it('lists the models in each SDK own shape', async () => {
    const expected = routeName('ollama_chat', 'text');
    const openai = new OpenAI({ apiKey: KEY, baseURL: `${gatewayURL}/v1` });
    const openaiIds: string[] = [];
    for await (const model of openai.models.list()) openaiIds.push(model.id);
    expect(openaiIds).toContain(expected);
    const anthropic = new Anthropic({ apiKey: KEY, baseURL: gatewayURL });
    const anthropicIds: string[] = [];
    for await (const model of anthropic.models.list()) anthropicIds.push(model.id);
    expect(anthropicIds).toContain(expected);
    const gemini = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: gatewayURL } });
    const geminiNames: string[] = [];
    for await (const model of await gemini.models.list()) geminiNames.push(model.name ?? '');
    expect(geminiNames).toContain(`models/${expected}`);
    const ollama = new Ollama({ host: gatewayURL, headers: { authorization: `Bearer ${KEY}` } });
    expect((await ollama.list()).models.map((m) => m.name)).toContain(expected);
    // One model, and a missing one as each SDK's not-found error.
    expect(await openai.models.retrieve(expected)).toMatchObject({ id: expected, object: 'model' });
    expect(await anthropic.models.retrieve(expected)).toMatchObject({ id: expected, type: 'model' });
    expect(await gemini.models.get({ model: expected })).toMatchObject({ name: `models/${expected}` });
    await expect(openai.models.retrieve('missing')).rejects.toMatchObject({ status: 404, constructor: OpenAI.NotFoundError });
    await expect(anthropic.models.retrieve('missing')).rejects.toMatchObject({ status: 404, constructor: Anthropic.NotFoundError });
  });

  it('answers an unknown model with the caller provider not-found error', async () => {
    const seen = await sdkTurn('openai-chat', { baseURL: gatewayURL, apiKey: KEY, model: 'no-such-model', stream: false });
    expect(seen.error).toMatchObject({ name: 'NotFoundError', status: 404 });
  });

  it('never sends the provider key to a caller', async () => {
    const response = await fetch(`${gatewayURL}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: routeName('anthropic_messages', 'http 429'), messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(429);
    expect(await response.text()).not.toContain(PROVIDER_SECRET);
  });
});
