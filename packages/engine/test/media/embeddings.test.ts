/**
 * embed / embedMany against a local server speaking each provider's embeddings wire
 * format; every request body is checked against the provider's published schema.
 * Backoff delays are measured through an injected sleep, never by the clock.
 */
import { ParlanceError } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { planBatches } from '../../src/embeddings/embedding-model.ts';
import {
  embed,
  embedMany,
  googleEmbeddingModel,
  mistralEmbeddingModel,
  ollamaEmbeddingModel,
  openaiCompatibleEmbeddingModel,
  openaiEmbeddingModel,
  resolveEmbeddingModel,
} from '../../src/index.ts';
import { type Handler, sendJson, serverPerTest } from '../providers/server.ts';
import {
  answerGoogleEmbeddings,
  answerOllamaEmbeddings,
  answerOpenAIEmbeddings,
  expectValid,
  expectValidGoogle,
  OLLAMA_SCHEMA,
  OPENAI_SCHEMA,
  vectorOf,
} from './media-wire.ts';

const serve = serverPerTest();
const texts = (n: number, prefix = 'doc') => Array.from({ length: n }, (_, i) => `${prefix} number ${i}`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function noWait() {
  const delays: number[] = [];
  return { delays, settings: { sleep: async (ms: number) => void delays.push(ms), random: () => 0 } };
}

describe('OpenAI embeddings', () => {
  it('batches 5,000 inputs to 2,048 a request, keeps order when batches finish out of order, sums usage and prices it', async () => {
    const server = await serve(async (req, res, index) => {
      expectValid(OPENAI_SCHEMA, 'CreateEmbeddingRequest', req.body);
      // The first batch answers last.
      if (index === 0) await pause(40);
      answerOpenAIEmbeddings(req, res);
    });
    const model = openaiEmbeddingModel('text-embedding-3-small', { baseURL: server.url, apiKey: 'sk-test' });
    const values = texts(5000);
    const progress: number[] = [];
    const result = await embedMany(model, { values, dimensions: 4, onBatch: ({ done }) => progress.push(done) });

    expect(server.requests.map((r) => r.body.input.length)).toEqual([2048, 2048, 904]);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0]!.body).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'base64', dimensions: 4 });
    expect(result.batches).toBe(3);
    expect(result.embeddings).toHaveLength(5000);
    for (const i of [0, 2047, 2048, 4095, 4096, 4999]) expect(result.embeddings[i]).toEqual(vectorOf(values[i]!));
    expect(progress.at(-1)).toBe(5000);
    const tokens = values.reduce((n, t) => n + t.split(' ').length, 0);
    expect(result.usage).toEqual({ inputTokens: tokens, totalTokens: tokens, cost: (tokens * 0.02) / 1e6 });
  });

  it('embed: one input, one vector', async () => {
    const server = await serve(answerOpenAIEmbeddings);
    const model = resolveEmbeddingModel('openai:text-embedding-3-large', { baseURL: server.url, env: { OPENAI_API_KEY: 'k' } });
    const { embedding, usage } = await embed(model, { value: 'hello world' });
    expect(embedding).toEqual(vectorOf('hello world'));
    expect(usage.inputTokens).toBe(2);
  });

  it('splits a request before 300,000 estimated tokens', () => {
    const long = 'x'.repeat(400_000); // ~100k tokens each
    expect(planBatches([long, long, long, long, 'a'], 2048, 300_000)).toEqual([
      [0, 3],
      [3, 5],
    ]);
    expect(planBatches(texts(5), 2)).toEqual([
      [0, 2],
      [2, 4],
      [4, 5],
    ]);
    expect(planBatches([], 10)).toEqual([]);
  });

  it('is refused when the catalog knows the model as another kind', () => {
    expect(() => resolveEmbeddingModel('openai:whisper-1', { apiKey: 'k' })).toThrow(/not a embedding model|is not an? embedding/);
    expect(() => resolveEmbeddingModel('acme:model')).toThrow(ParlanceError);
  });
});

describe('Google, Mistral, Ollama, OpenAI-compatible', () => {
  it('Gemini: batchEmbedContents in batches of 100, task type and dimensions in embedContentConfig', async () => {
    const server = await serve((req, res) => {
      expectValidGoogle('BatchEmbedContentsRequest', req.body);
      answerGoogleEmbeddings(req, res);
    });
    const model = googleEmbeddingModel('gemini-embedding-001', { baseURL: server.url, apiKey: 'g-key' });
    const values = texts(250);
    const result = await embedMany(model, { values, taskType: 'RETRIEVAL_DOCUMENT', dimensions: 768 });
    expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill('/v1beta/models/gemini-embedding-001:batchEmbedContents'));
    expect(server.requests.map((r) => r.body.requests.length)).toEqual([100, 100, 50]);
    expect(server.requests[0]!.headers['x-goog-api-key']).toBe('g-key');
    expect(server.requests[0]!.body.requests[0]).toEqual({
      model: 'models/gemini-embedding-001',
      content: { parts: [{ text: 'doc number 0' }] },
      embedContentConfig: { taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 768 },
    });
    expect(result.embeddings[249]).toEqual(vectorOf('doc number 249'));
    expect(result.usage).toEqual({ inputTokens: 750, cost: (750 * 0.15) / 1e6 });
  });

  it('Mistral: 256 a request, output_dimension, float vectors', async () => {
    const server = await serve(answerOpenAIEmbeddings);
    const model = mistralEmbeddingModel('codestral-embed', { baseURL: server.url, apiKey: 'm-key' });
    const result = await embedMany(model, { values: texts(300), dimensions: 256 });
    expect(server.requests.map((r) => r.body.input.length)).toEqual([256, 44]);
    expect(server.requests[0]!.url).toBe('/embeddings');
    expect(server.requests[0]!.body).toEqual({ model: 'codestral-embed', input: texts(256), output_dimension: 256 });
    expect(result.embeddings[299]).toEqual(vectorOf('doc number 299'));
  });

  it('Ollama: /api/embed, prompt_eval_count as input tokens, no key needed', async () => {
    const server = await serve((req, res) => {
      expectValid(OLLAMA_SCHEMA, 'EmbedRequest', req.body);
      answerOllamaEmbeddings(req, res);
    });
    const model = ollamaEmbeddingModel('nomic-embed-text', { baseURL: server.url, env: {}, maxBatchSize: 10 });
    const result = await embedMany(model, { values: texts(25) });
    expect(server.requests.map((r) => [r.url, r.body.input.length])).toEqual([
      ['/api/embed', 10],
      ['/api/embed', 10],
      ['/api/embed', 5],
    ]);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(result.usage).toEqual({ inputTokens: 50 });
    expect(result.embeddings[24]).toEqual(vectorOf('doc number 24'));
  });

  it('an OpenAI-compatible server: its base URL, its batch size, no key unless asked for', async () => {
    const server = await serve((req, res) => {
      expectValid(OPENAI_SCHEMA, 'CreateEmbeddingRequest', req.body);
      answerOpenAIEmbeddings(req, res);
    });
    const model = openaiCompatibleEmbeddingModel('bge-m3', { baseURL: `${server.url}/v1`, maxBatchSize: 64, env: {} });
    const result = await embedMany(model, { values: texts(100), maxConcurrency: 1 });
    expect(server.requests.map((r) => [r.url, r.body.input.length])).toEqual([
      ['/v1/embeddings', 64],
      ['/v1/embeddings', 36],
    ]);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(server.requests[0]!.body.encoding_format).toBeUndefined();
    expect(result.embeddings.map((v, i) => v === undefined || i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(() => openaiCompatibleEmbeddingModel('x', { baseURL: server.url, requireApiKey: true, apiKeyEnv: 'MY_KEY', env: {} })).not.toThrow();
    await expect(
      embed(openaiCompatibleEmbeddingModel('x', { baseURL: server.url, requireApiKey: true, apiKeyEnv: 'MY_KEY', env: {} }), { value: 'a' }),
    ).rejects.toMatchObject({ code: 'authentication' });
  });
});

describe('embedding faults (the transport\'s)', () => {
  async function setup(handler: Handler, extra: Record<string, unknown> = {}) {
    const server = await serve(handler);
    const { delays, settings } = noWait();
    const model = openaiEmbeddingModel('text-embedding-3-small', { baseURL: server.url, apiKey: 'sk-secret-123', ...settings, ...extra });
    return { server, delays, model };
  }

  it('retries a 429 after its Retry-After, and a 500 with backoff', async () => {
    const { server, delays, model } = await setup((req, res, index) => {
      if (index === 0) return sendJson(res, 429, { error: { message: 'Rate limit', type: 'requests' } }, { 'retry-after-ms': '1500' });
      if (index === 1) return sendJson(res, 500, { error: { message: 'boom' } });
      answerOpenAIEmbeddings(req, res);
    });
    const result = await embedMany(model, { values: texts(3) });
    expect(server.requests).toHaveLength(3);
    expect(delays).toEqual([1500, 1000]);
    expect(result.embeddings[2]).toEqual(vectorOf('doc number 2'));
  });

  it('a 400 is a typed error, not retried, with the key redacted', async () => {
    const { server, model } = await setup((_req, res) =>
      sendJson(res, 400, { error: { message: "'$.input' is invalid for key sk-secret-123", type: 'invalid_request_error' } }),
    );
    const error = await embedMany(model, { values: texts(3) }).catch((e: unknown) => e);
    expect(ParlanceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect((error as Error).message).not.toContain('sk-secret-123');
    expect(server.requests).toHaveLength(1);
  });

  it('one failing batch fails the call and cancels the batches still in flight', async () => {
    const { server, model } = await setup(async (req, res, index) => {
      if (index === 1) {
        // Fail once all four are in flight.
        await pause(60);
        return sendJson(res, 401, { error: { message: 'Incorrect API key' } });
      }
      await pause(2000);
      answerOpenAIEmbeddings(req, res);
    }, { maxBatchSize: 2 });
    const error = await embedMany(model, { values: texts(8), maxConcurrency: 4 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'authentication' });
    const closed = await Promise.all(server.requests.map((r) => r.closed));
    // The slow batches were cut, not waited for.
    expect(server.requests).toHaveLength(4);
    expect(closed.filter((c) => !c.finished)).toHaveLength(3);
  });

  it('silence before the first byte is a timeout after the retries', async () => {
    // 400 ms, not less: on a loaded machine a shorter wait ran out before the server had even
    // recorded the request, and the count below was 1.
    const { server, model } = await setup(() => {}, { timeouts: { firstByteMs: 400 }, retry: { maxRetries: 1 } });
    await expect(embed(model, { value: 'a' })).rejects.toMatchObject({ code: 'timeout' });
    expect(server.requests).toHaveLength(2);
  });

  it('a body cut mid-way is a network error, never half a result', async () => {
    const { model } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"object":"list","data":[{"index":0,"embedding":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await expect(embed(model, { value: 'a' })).rejects.toMatchObject({ code: 'network' });
  });

  it('the caller aborting stops every request', async () => {
    const controller = new AbortController();
    const { server, model } = await setup(async (req, res) => {
      await pause(500);
      answerOpenAIEmbeddings(req, res);
    }, { maxBatchSize: 1 });
    const pending = embedMany(model, { values: texts(3), signal: controller.signal, maxConcurrency: 3 });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    const closed = await Promise.all(server.requests.map((r) => r.closed));
    expect(closed.every((c) => !c.finished)).toBe(true);
  });

  it('answers that do not fit are invalid_response: not JSON, a missing vector, the wrong count', async () => {
    const bad = [
      (res: Parameters<Handler>[1]) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>gateway</html>');
      },
      (res: Parameters<Handler>[1]) => sendJson(res, 200, { object: 'list', data: [{ index: 0 }] }),
      (res: Parameters<Handler>[1]) => sendJson(res, 200, { object: 'list', data: [{ index: 0, embedding: [1, 2] }] }),
      (res: Parameters<Handler>[1]) => sendJson(res, 200, { object: 'list' }),
    ];
    for (const answer of bad) {
      const { model } = await setup((_req, res) => answer(res));
      await expect(embedMany(model, { values: ['a', 'b'] })).rejects.toMatchObject({ code: 'invalid_response' });
    }
  });
});
