/**
 * Every route the official SDKs call at their defaults, over HTTP with the SDKs themselves:
 * embeddings (OpenAI's default base64 encoding, Ollama's embed and the older embeddings,
 * Gemini's embedContent and batchEmbedContents), token counts (Anthropic, OpenAI Responses,
 * Gemini), Ollama's generate, Gemini under /v1 (@google/genai 3.x) and /v1beta, and an unknown
 * path as each SDK's own not-found error.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { serve, type ServerType } from '@hono/node-server';
import type { EmbeddingModel } from '@parlance/engine';
import { serveMockProvider, type MockProviderServer } from '@parlance/testing';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PROVIDER } from '../../test/gateway-providers.ts';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';

vi.setConfig({ testTimeout: 30_000 });

const KEY = 'gw-routes-key';

/** A deterministic embedding model: each input's vector is [length, index-free checksum, 0.5]. */
const fakeEmbeddings: EmbeddingModel & { calls: string[][] } = {
  provider: 'fake',
  modelId: 'fake-embed',
  info: {} as EmbeddingModel['info'],
  maxBatchSize: 8,
  calls: [],
  async embedBatch(values) {
    this.calls.push(values);
    return { embeddings: values.map((v) => [v.length, [...v].reduce((n, ch) => n + ch.charCodeAt(0), 0), 0.5]), usage: { inputTokens: values.length * 3 } };
  },
};
const vectorOf = (v: string) => [v.length, [...v].reduce((n, ch) => n + ch.charCodeAt(0), 0), 0.5];

let mock: MockProviderServer;
let server: ServerType;
let url = '';

beforeAll(async () => {
  mock = await serveMockProvider({ dialect: 'openai_completions', script: [{ reasoning: 'Short.', text: 'Hello there.', usage: { inputTokens: 21, outputTokens: 9 } }] });
  const app = createGateway({
    routes: { chat: { ...PROVIDER.openai_completions, model: 'm', baseURL: mock.url, apiKey: 'p', retry: false } },
    embeddings: { embed: fakeEmbeddings },
    authorize: staticKeys({ [KEY]: { id: 'a' } }),
  });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      url = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await mock.close();
});

describe('embeddings in each SDK', () => {
  it('OpenAI: float and the SDK default (base64)', async () => {
    const openai = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    const byDefault = await openai.embeddings.create({ model: 'embed', input: ['hello', 'a'] });
    expect(byDefault.data.map((d) => d.embedding)).toEqual([vectorOf('hello'), vectorOf('a')]);
    expect(byDefault.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    const floats = await openai.embeddings.create({ model: 'embed', input: 'hey', encoding_format: 'float' });
    expect(floats.data[0]?.embedding).toEqual(vectorOf('hey'));
    await expect(openai.embeddings.create({ model: 'nope', input: 'x' })).rejects.toMatchObject({ status: 404, constructor: OpenAI.NotFoundError });
    await expect(openai.embeddings.create({ model: 'embed', input: [[1, 2, 3]] })).rejects.toMatchObject({ status: 400 });
  });

  it('Ollama: embed and the older embeddings', async () => {
    const ollama = new Ollama({ host: url, headers: { authorization: `Bearer ${KEY}` } });
    expect((await ollama.embed({ model: 'embed', input: ['hello', 'a'] })).embeddings).toEqual([vectorOf('hello'), vectorOf('a')]);
    expect((await ollama.embeddings({ model: 'embed', prompt: 'hey' })).embedding).toEqual(vectorOf('hey'));
  });

  it('Gemini: embedContent with one and several contents', async () => {
    const gemini = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url } });
    const one = await gemini.models.embedContent({ model: 'embed', contents: 'hello' });
    expect(one.embeddings?.map((e) => e.values)).toEqual([vectorOf('hello')]);
    const many = await gemini.models.embedContent({ model: 'embed', contents: ['hello', 'a'] });
    expect(many.embeddings?.map((e) => e.values)).toEqual([vectorOf('hello'), vectorOf('a')]);
  });
});

describe('token counts in each SDK (the engine estimate, routed like a chat call)', () => {
  const long = 'word '.repeat(400);

  it('Anthropic messages.countTokens', async () => {
    const anthropic = new Anthropic({ apiKey: KEY, baseURL: url, maxRetries: 0 });
    const short = await anthropic.messages.countTokens({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    const longer = await anthropic.messages.countTokens({ model: 'chat', messages: [{ role: 'user', content: long }] });
    expect(short.input_tokens).toBeGreaterThan(0);
    expect(longer.input_tokens).toBeGreaterThan(short.input_tokens + 300);
    await expect(anthropic.messages.countTokens({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 404 });
  });

  it('OpenAI responses.inputTokens.count', async () => {
    const openai = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    const counted = await openai.responses.inputTokens.count({ model: 'chat', input: long });
    expect(counted).toMatchObject({ object: 'response.input_tokens' });
    expect(counted.input_tokens).toBeGreaterThan(300);
  });

  it('Gemini countTokens', async () => {
    const gemini = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url } });
    expect((await gemini.models.countTokens({ model: 'chat', contents: long })).totalTokens).toBeGreaterThan(300);
  });
});

describe('chat routes at the SDK defaults', () => {
  it('Ollama generate, streamed and not', async () => {
    const ollama = new Ollama({ host: url, headers: { authorization: `Bearer ${KEY}` } });
    const whole = await ollama.generate({ model: 'chat', prompt: 'hi', system: 'Be brief.' });
    expect(whole).toMatchObject({ response: 'Hello there.', done: true, prompt_eval_count: 21, eval_count: 9 });
    let text = '';
    for await (const part of await ollama.generate({ model: 'chat', prompt: 'hi', stream: true })) text += part.response;
    expect(text).toBe('Hello there.');
    const sent = mock.requests.at(-2)!.body as { messages: { role: string; content: string }[] };
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('Gemini under /v1 (the @google/genai 3.x default) and /v1beta', async () => {
    for (const apiVersion of [undefined, 'v1beta']) {
      const gemini = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url, ...(apiVersion ? { apiVersion } : {}) } });
      expect((await gemini.models.generateContent({ model: 'chat', contents: 'hi' })).text).toBe('Hello there.');
      let text = '';
      for await (const chunk of await gemini.models.generateContentStream({ model: 'chat', contents: 'hi' })) text += chunk.text ?? '';
      expect(text).toBe('Hello there.');
      expect((await gemini.models.get({ model: 'chat' })).name).toBe('models/chat');
    }
  });

  it('answers an unknown path with each SDK own not-found error', async () => {
    const openai = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    await expect(openai.images.generate({ model: 'chat', prompt: 'x' })).rejects.toMatchObject({ status: 404, constructor: OpenAI.NotFoundError });
    const anthropic = new Anthropic({ apiKey: KEY, baseURL: url, maxRetries: 0 });
    await expect(anthropic.messages.batches.list()).rejects.toMatchObject({ status: 404, constructor: Anthropic.NotFoundError, error: { type: 'error', error: { type: 'not_found_error' } } });
    const gemini = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url } });
    await expect(gemini.caches.list()).rejects.toMatchObject({ status: 404 });
    const ollama = await fetch(`${url}/api/show`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{"model":"chat"}' });
    expect(ollama.status).toBe(404);
    expect(await ollama.json()).toEqual({ error: expect.stringContaining('No route') });
  });
});
