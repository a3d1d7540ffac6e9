/**
 * The catalog and what the engine does with it before a request leaves: image input
 * to a text-only model fails without a request, effort levels are clamped to the ones
 * a model accepts, token limits to its maximum; unknown models pass through.
 */
import type { ModelRequest } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { computeCost, getModelInfo, listModels } from '../../src/catalog/catalog.ts';
import { adjustRequest, clampEffort, google, groq } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { fixture, replay, serverPerTest } from './server.ts';

const serve = serverPerTest();

const text = ask('Hi');
const withImage: ModelRequest['messages'] = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is this?' }, { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' }] },
];

describe('getModelInfo', () => {
  it('knows current models with their limits, modalities and prices', () => {
    const info = getModelInfo('anthropic', 'claude-sonnet-4-5');
    expect(info).toMatchObject({ known: true, contextWindow: 200000, input: ['text', 'image'], reasoning: true });
    expect(info.pricing).toMatchObject({ input: 3, output: 15 });
    expect(listModels('openai')).toContain('gpt-5');
  });

  it('finds a dated snapshot through its alias', () => {
    expect(getModelInfo('openai', 'gpt-5-mini-2025-08-07')).toMatchObject({ known: true, contextWindow: 400000 });
  });

  it('gives an unknown model permissive defaults and no prices', () => {
    const info = getModelInfo('openai', 'gpt-99-ultra');
    expect(info).toMatchObject({ known: false, contextWindow: 128000, input: ['text', 'image'] });
    expect(info.pricing).toBeUndefined();
    expect(info.reasoning).toBeUndefined();
  });
});

describe('computeCost', () => {
  it('bills cached input at the cache price and the rest at the input price', () => {
    const pricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const cost = computeCost(pricing, { inputTokens: 1_000_000, cacheReadTokens: 400_000, cacheWriteTokens: 100_000, outputTokens: 200_000 });
    expect(cost).toBeCloseTo(500_000 * 3e-6 + 400_000 * 0.3e-6 + 100_000 * 3.75e-6 + 200_000 * 15e-6, 9);
  });

  it('is undefined without prices or token counts', () => {
    expect(computeCost(undefined, { inputTokens: 5 })).toBeUndefined();
    expect(computeCost({ input: 1, output: 1 }, {})).toBeUndefined();
  });
});

describe('before the request', () => {
  it('fails an image sent to a text-only model with a typed error, making no request', async () => {
    const server = await serve((_req, res) => replay(res, fixture('openai_completions', 'omni__groq_text.sse')));
    const model = groq.model('llama-3.3-70b-versatile', { baseURL: server.url, apiKey: 'k-0123456789' });
    const events = await drain(model.stream({ messages: withImage }));
    expect(server.requests).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual(['message-start', 'error', 'finish']);
    expect(events[1]).toMatchObject({ type: 'error', code: 'invalid_request', retryable: false });
    expect((events[1] as { message: string }).message).toContain('does not accept image input');
  });

  it('sends the image to a model that takes images, and to an unknown one', async () => {
    const server = await serve((_req, res) => replay(res, fixture('google_gemini', 'vercel-ai__google__google-text.chunks.txt')));
    for (const id of ['gemini-2.5-flash', 'gemini-from-the-future']) {
      for await (const _ of google.model(id, { baseURL: server.url, apiKey: 'k-0123456789' }).stream({ messages: withImage }));
    }
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[0]!.body)).toContain('image/png');
  });

  it('clamps effort to the nearest accepted level', () => {
    expect(clampEffort('xhigh', ['minimal', 'low', 'medium', 'high'])).toBe('high');
    expect(clampEffort('minimal', ['low', 'high'])).toBe('low');
    expect(clampEffort('medium', ['low', 'high'])).toBe('high');
    const gemini3 = getModelInfo('google', 'gemini-3-pro-preview');
    expect(adjustRequest({ messages: text, thinking: { effort: 'medium' } }, gemini3).thinking).toEqual({ effort: 'high' });
  });

  it('drops thinking for a model that cannot reason, or "off" for one that cannot stop, and caps max tokens', () => {
    const llama = getModelInfo('groq', 'llama-3.3-70b-versatile');
    expect('thinking' in adjustRequest({ messages: text, thinking: { effort: 'high' } }, llama)).toBe(false);
    const gpt5 = getModelInfo('openai', 'gpt-5');
    expect('thinking' in adjustRequest({ messages: text, thinking: false }, gpt5)).toBe(false);
    expect(adjustRequest({ messages: text, maxOutputTokens: 10_000_000 }, gpt5).maxOutputTokens).toBe(gpt5.maxOutputTokens);
    const unknown = getModelInfo('openai', 'gpt-99');
    expect(adjustRequest({ messages: text, thinking: false, maxOutputTokens: 10_000_000 }, unknown)).toEqual({
      messages: text,
      thinking: false,
      maxOutputTokens: 10_000_000,
    });
  });
});
