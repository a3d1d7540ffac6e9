import type { ErrorEvent, LanguageModel } from '@parlance/protocol';
import { collectResponse, messageText } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { defineProvider, openaiCompatible, resolveModel, withFallback } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { fixture, replay, sendJson, serverPerTest } from './server.ts';

const messages = ask('Hi');
const serve = serverPerTest();

describe('resolveModel', () => {
  it('splits at the first colon only', () => {
    const model = resolveModel('ollama:llama3.2:3b');
    expect([model.provider, model.modelId, model.dialect]).toEqual(['ollama', 'llama3.2:3b', 'ollama_chat']);
    expect(resolveModel('openrouter:deepseek/deepseek-r1:free').modelId).toBe('deepseek/deepseek-r1:free');
  });

  it('accepts specs, user providers and LanguageModels', () => {
    const mine = defineProvider({ id: 'mine', baseURL: 'http://127.0.0.1:1/v1', auth: 'none', dialect: 'openai_completions' });
    expect(resolveModel('mine:m1', { providers: { mine } }).provider).toBe('mine');
    expect(resolveModel({ provider: 'openai', model: 'gpt-4o', dialect: 'openai_completions' }).dialect).toBe('openai_completions');
    const model = resolveModel('groq:llama-3.3-70b-versatile');
    expect(resolveModel(model)).toBe(model);
  });

  it('rejects unknown providers and malformed strings with invalid_request', () => {
    expect(() => resolveModel('nope:x')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => resolveModel('gpt-5')).toThrow(/provider:model/);
  });
});

describe('openaiCompatible', () => {
  it('talks to any Chat Completions server, without a key by default', async () => {
    const server = await serve((_req, res) => replay(res, fixture('openai_completions', 'omni__opencode_text_oaic.sse')));
    const local = openaiCompatible({ id: 'vllm', baseURL: `${server.url}/v1`, env: {} });
    const response = await collectResponse(local.model('qwen').stream({ messages }));
    expect(server.requests[0]!.url).toBe('/v1/chat/completions');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(messageText(response.message).length).toBeGreaterThan(0);
  });
});

describe('withFallback', () => {
  it('moves to the next model when one fails before any content, and not after', async () => {
    const failing = await serve((_req, res) => sendJson(res, 401, { error: { message: 'bad key' } }));
    const working = await serve((_req, res) => replay(res, fixture('openai_completions', 'omni__groq_text.sse')));
    const a = openaiCompatible({ id: 'a', baseURL: failing.url });
    const b = openaiCompatible({ id: 'b', baseURL: working.url });
    const seen: ErrorEvent[] = [];
    const chain = withFallback([a.model('m'), b.model('m')], { onFallback: ({ error }) => seen.push(error) });
    const events = await drain(chain.stream({ messages }));
    expect(seen.map((e) => e.code)).toEqual(['authentication']);
    expect(events.filter((e) => e.type === 'message-start')).toHaveLength(1);
    expect(events[0]).toMatchObject({ provenance: { provider: 'b' } });
    expect((await collectResponse(events)).finishReason).toBe('stop');
  });

  it('keeps a stream that already produced content, error and all', async () => {
    const partial: LanguageModel = {
      provider: 'p',
      modelId: 'm',
      dialect: 'openai_completions',
      async *stream() {
        yield { type: 'message-start' };
        yield { type: 'text-start', id: 't' };
        yield { type: 'text-delta', id: 't', delta: 'Hel' };
        yield { type: 'text-end', id: 't' };
        yield { type: 'error', code: 'network', message: 'reset', retryable: true };
        yield { type: 'finish', finishReason: 'error', usage: {} };
      },
    };
    let called = false;
    const never: LanguageModel = { ...partial, provider: 'q', async *stream() {
      called = true;
      yield* [];
    } };
    const response = await collectResponse(withFallback([partial, never]).stream({ messages }));
    expect(called).toBe(false);
    expect(messageText(response.message)).toBe('Hel');
    expect(response.error?.code).toBe('network');
  });

  it('does not fall back after an abort', async () => {
    let called = false;
    const aborted: LanguageModel = {
      provider: 'p',
      modelId: 'm',
      dialect: 'x',
      async *stream() {
        yield { type: 'message-start' };
        yield { type: 'error', code: 'aborted', message: 'aborted', retryable: false };
        yield { type: 'finish', finishReason: 'cancelled', usage: {} };
      },
    };
    const next: LanguageModel = { ...aborted, async *stream() {
      called = true;
      yield* [];
    } };
    const response = await collectResponse(withFallback([aborted, next]).stream({ messages }));
    expect(called).toBe(false);
    expect(response.finishReason).toBe('cancelled');
  });
});
