/**
 * Each built-in provider against a local server replaying a real recording in uneven
 * chunks: the request goes to the provider's path with its auth header and a body the
 * dialect encoded, and what comes back is exactly what the dialect decodes from the
 * recording's bytes (plus the provenance and cost the provider layer adds).
 */
import { decodeText, type DialectId } from '@parlance/dialects';
import { collectResponse, type Event, type Usage } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { computeCost, getModelInfo } from '../../src/catalog/catalog.ts';
import {
  alibaba,
  anthropic,
  google,
  groq,
  moonshot,
  ollama,
  openai,
  openrouter,
  zai,
  type Provider,
} from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { fixture, replay, serverPerTest } from './server.ts';

const KEY = 'test-key-0123456789abcdef';
const request = { messages: ask('How many r in strawberry?') };

const serve = serverPerTest();

function withoutCost(usage: Usage): Usage {
  const { cost: _cost, ...rest } = usage;
  return rest;
}

/** What the provider layer adds (provenance, model, catalog cost) taken back out. */
function normalize(events: Event[], keepCost: boolean): Event[] {
  return events.map((event) => {
    if (event.type === 'message-start') {
      const { provenance: _p, model: _m, ...rest } = event;
      return rest;
    }
    if ((event.type === 'usage' || event.type === 'finish') && !keepCost) return { ...event, usage: withoutCost(event.usage) };
    return event;
  });
}

async function run(provider: Provider, modelId: string, dialect: DialectId, name: string, extra: object = {}) {
  const recording = fixture(dialect, name);
  const server = await serve((_req, res) => replay(res, recording));
  const model = provider.model(modelId, { baseURL: server.url, apiKey: KEY });
  const events = await drain(model.stream({ ...request, ...extra }));
  const direct = decodeText(dialect, recording.bytes, (() => {
    const options = provider.definition.decoderOptions;
    return typeof options === 'function' ? options(modelId) : options;
  })());
  const sent = server.requests[0]!;
  return { events, direct, sent, model };
}

interface Case {
  provider: Provider;
  modelId: string;
  dialect: DialectId;
  fixture: string;
  path: string;
  auth: [string, string];
  headers?: Record<string, string>;
  modelInBody: boolean;
}

const cases: Case[] = [
  {
    provider: openai,
    modelId: 'gpt-4o-2024-08-06',
    dialect: 'openai_responses',
    fixture: 'pydantic-ai__test_openai_responses_stream.i0.sse',
    path: '/responses',
    auth: ['authorization', `Bearer ${KEY}`],
    modelInBody: true,
  },
  {
    provider: anthropic,
    modelId: 'claude-haiku-4-5-20251001',
    dialect: 'anthropic_messages',
    fixture: 'omni__anthropic_text.sse',
    path: '/v1/messages',
    auth: ['x-api-key', KEY],
    headers: { 'anthropic-version': '2023-06-01' },
    modelInBody: true,
  },
  {
    provider: google,
    modelId: 'gemini-3-pro-preview',
    dialect: 'google_gemini',
    fixture: 'vercel-ai__google__google-text.chunks.txt',
    path: '/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse',
    auth: ['x-goog-api-key', KEY],
    modelInBody: false,
  },
  {
    provider: ollama,
    modelId: 'llama3.2',
    dialect: 'ollama_chat',
    fixture: 'omni__ollama_text.ndjson',
    path: '/api/chat',
    auth: ['authorization', `Bearer ${KEY}`],
    modelInBody: true,
  },
  ...(
    [
      [groq, 'llama-3.3-70b-versatile', 'omni__groq_text.sse'],
      [openrouter, 'openai/gpt-4o-mini', 'omni__openrouter_text.sse'],
      [moonshot, 'kimi-k2.6', 'omni__moonshot_text.sse'],
      [zai, 'glm-4.7-flash', 'omni__zai_text.sse'],
      [alibaba, 'qwen3.6-plus', 'omni__alibaba_text.sse'],
    ] as const
  ).map(
    ([provider, modelId, name]): Case => ({
      provider,
      modelId,
      dialect: 'openai_completions',
      fixture: name,
      path: '/chat/completions',
      auth: ['authorization', `Bearer ${KEY}`],
      modelInBody: true,
    }),
  ),
];

describe('providers replay recordings over HTTP', () => {
  for (const c of cases) {
    it(`${c.provider.id}: sends to ${c.path} with its auth and decodes ${c.fixture} exactly`, async () => {
      const { events, direct, sent } = await run(c.provider, c.modelId, c.dialect, c.fixture);
      expect(sent.method).toBe('POST');
      expect(sent.url).toBe(c.path);
      expect(sent.headers[c.auth[0]]).toBe(c.auth[1]);
      expect(sent.headers['content-type']).toBe('application/json');
      for (const [name, value] of Object.entries(c.headers ?? {})) expect(sent.headers[name]).toBe(value);
      // The key travels in its header only, never in the URL.
      expect(sent.url).not.toContain(KEY);
      if (c.modelInBody) expect(sent.body.model).toBe(c.modelId);
      expect(JSON.stringify(sent.body)).toContain('How many r in strawberry?');

      const directHasCost = direct.some((e) => (e.type === 'usage' || e.type === 'finish') && e.usage.cost !== undefined);
      expect(normalize(events, directHasCost)).toEqual(normalize(direct, directHasCost));
      expect(events[0]).toMatchObject({
        type: 'message-start',
        provenance: { provider: c.provider.id, model: c.modelId, dialect: c.dialect },
      });
      const response = await collectResponse(events);
      expect(response.finishReason).not.toBe('error');
    });
  }
});

describe('cost from the catalog', () => {
  it('turns the reported usage into dollars with the model price', async () => {
    const { events } = await run(groq, 'llama-3.3-70b-versatile', 'openai_completions', 'omni__groq_text.sse');
    const finish = events.at(-1);
    expect(finish?.type).toBe('finish');
    const usage = (finish as { usage: Usage }).usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    const price = getModelInfo('groq', 'llama-3.3-70b-versatile').pricing!;
    const expected = ((usage.inputTokens ?? 0) * price.input + (usage.outputTokens ?? 0) * price.output) / 1e6;
    expect(usage.cost).toBeCloseTo(expected, 12);
    expect(usage.cost).toBe(computeCost(price, usage));
  });

  it('leaves cost undefined for a model without known prices', async () => {
    const { events } = await run(groq, 'some-new-model', 'openai_completions', 'omni__groq_text.sse');
    const response = await collectResponse(events);
    expect(response.usage.inputTokens).toBeGreaterThan(0);
    expect(response.usage.cost).toBeUndefined();
  });
});
