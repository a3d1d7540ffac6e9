// Every URL a provider builds from caller data, attacked with the path tricks that rewrote the
// gateway's upstream URL (`google:../../../v1beta/cachedContents?x=`): through every chat provider
// and every media model, each trick is refused with a typed error and nothing is fetched.
import { modelPathSegment } from '@parlance/dialects';
import type { Event } from '@parlance/protocol';
import { describe, expect, it, vi } from 'vitest';
import { geminiSpeechModel, geminiTranscriptionModel } from '../audio/gemini-audio.ts';
import { openaiSpeechModel, openaiTranscriptionModel } from '../audio/openai-audio.ts';
import { googleEmbeddingModel } from '../embeddings/google-embeddings.ts';
import { ollamaEmbeddingModel } from '../embeddings/ollama-embeddings.ts';
import { mistralEmbeddingModel, openaiEmbeddingModel } from '../embeddings/openai-embeddings.ts';
import { geminiImageModel } from '../images/gemini-images.ts';
import { openaiImageModel } from '../images/openai-images.ts';
import { resolveModerationModel } from '../moderation/openai-moderation.ts';
import { builtinProviders } from './builtin/index.ts';
import { defineProvider } from './define-provider.ts';
import { openaiCompatible } from './openai-compatible.ts';
import { checkModelId, sealedURL } from './provider-url.ts';
import { resolveModel } from './resolve-model.ts';

/** Model ids a caller may send to rewrite the path, query or host of the upstream request. */
const TRICKS: [string, string][] = [
  ['the issue: ../ to another endpoint with a query', '../../../v1beta/cachedContents?x='],
  ['../', '../admin'],
  ['a bare ..', '..'],
  ['a bare .', '.'],
  ['../ inside', 'gemini/../../admin'],
  ['%2e%2e', '%2e%2e/%2e%2e/admin'],
  ['%2e%2e alone', '%2e%2e'],
  ['?key=...#', 'gemini-2.5-flash?key=stolen#'],
  ['a fragment', 'gemini-2.5-flash#x'],
  ['backslashes', 'a\\..\\..\\admin'],
  ['//', 'a//b'],
  ['a leading //', '//evil.example/x'],
  ['a leading @', '@evil.example'],
  ['%00', 'gemini%00'],
  ['a NUL', 'gemini\u0000x'],
  ['unicode dots (fullwidth)', '\uff0e\uff0e/admin'],
  ['unicode dots (one-dot leader)', 'm\u2024\u2024/x'],
  ['a space', 'gemini 2.5'],
  ['a newline', 'gemini\nx'],
  ['an absolute URL', 'https://evil.example/v1'],
  ['a trailing slash', 'gemini/'],
  ['too long', 'm'.repeat(300)],
];

const noFetch = () => vi.fn(async () => new Response('{}'));
const request = { messages: [{ id: 'u', role: 'user' as const, parts: [{ type: 'text' as const, text: 'hi' }] }] };

async function drain(events: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('checkModelId', () => {
  it.each(TRICKS)('refuses %s', (_name, id) => {
    expect(() => checkModelId(id)).toThrow(expect.objectContaining({ code: 'invalid_request', status: 400 }));
  });

  it('accepts the model ids providers publish', () => {
    for (const id of ['gpt-5-mini', 'claude-sonnet-4-5', 'models/gemini-2.5-flash', 'llama3.2:3b', 'deepseek/deepseek-r1:free', 'accounts/fireworks/models/llama-v3p1-8b', 'claude-3-5-sonnet@20240620', 'hf.co/bartowski/Llama-3.2-1B-GGUF:Q4_K_M']) {
      expect(() => checkModelId(id), id).not.toThrow();
    }
  });
});

describe('sealedURL', () => {
  const base = 'https://generativelanguage.googleapis.com';
  const bending = ['../../../v1beta/cachedContents?x=', '../admin', 'gemini/../../admin', '%2e%2e/%2e%2e/admin', 'gemini-2.5-flash?key=stolen#', 'gemini-2.5-flash#x', 'a\\..\\..\\admin', 'x/%2E%2e/%2e./y/../../..'];
  it.each(bending)('refuses a path bent by %j appended unencoded (the check behind the encoding)', (id) => {
    expect(() => sealedURL(base, `/v1beta/models/${id}:streamGenerateContent?alt=sse`)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('keeps a base path prefix and its origin: a path may not climb out of /proxy/v1, nor change host', () => {
    expect(sealedURL('http://127.0.0.1:9/proxy/v1/', '/chat/completions')).toBe('http://127.0.0.1:9/proxy/v1/chat/completions');
    for (const base of ['http://127.0.0.1:9/proxy/v1', 'http://127.0.0.1:9']) {
      for (const path of ['/../admin', '/%2e%2e/admin', '/..\\admin', '/x#y', '/x/../../y', '@evil.example/x', '.evil.example/x', ':1/x']) {
        expect(() => sealedURL(base, path), `${base} ${path}`).toThrow(expect.objectContaining({ code: 'invalid_request' }));
      }
    }
  });

  it('passes encoded segments through unchanged', () => {
    expect(sealedURL('https://g.example', `/v1beta/models/${modelPathSegment('models/gemini-2.5-flash')}:generateContent?alt=sse`)).toBe('https://g.example/v1beta/models/gemini-2.5-flash:generateContent?alt=sse');
  });
});

describe('every provider refuses every path trick before it fetches', () => {
  const custom = openaiCompatible({ id: 'local', baseURL: 'http://127.0.0.1:9/proxy/v1' });
  const proxied = defineProvider({ id: 'gproxy', baseURL: 'https://proxy.internal/google', auth: { env: 'X_KEY' }, dialect: 'google_gemini' });
  const providers = { ...builtinProviders, local: custom, gproxy: proxied };
  const cases = Object.keys(providers).flatMap((provider) => TRICKS.map(([name, id]) => [provider, name, id] as const));

  it.each(cases)('%s: %s', (provider, _name, id) => {
    const fetch = noFetch();
    expect(() => resolveModel(`${provider}:${id}`, { providers, apiKey: 'sk-test', fetch, retry: false })).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(fetch).not.toHaveBeenCalled();
  });

  it('a Gemini model id that is a valid id but not one path segment (a/b, x:y, v@1) ends the stream with invalid_request, fetching nothing', async () => {
    for (const provider of ['google', 'gproxy']) {
      for (const id of ['a/b', 'gemini:x', 'gemini@1']) {
        const fetch = noFetch();
        const events = await drain(resolveModel(`${provider}:${id}`, { providers, apiKey: 'sk-test', fetch, retry: false }).stream(request, {}));
        expect(events.find((e) => e.type === 'error'), `${provider}:${id}`).toMatchObject({ code: 'invalid_request' });
        expect(fetch).not.toHaveBeenCalled();
      }
    }
  });

  it('a valid id reaches the configured base, under its path prefix', async () => {
    for (const [provider, base] of [['google', 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:'], ['gproxy', 'https://proxy.internal/google/v1beta/models/gemini-2.5-flash:'], ['local', 'http://127.0.0.1:9/proxy/v1/chat/completions'], ['openai', 'https://api.openai.com/v1/']] as const) {
      const fetch = vi.fn(async () => new Response('nope', { status: 500 }));
      await drain(resolveModel(`${provider}:gemini-2.5-flash`, { providers, apiKey: 'sk-test', fetch, retry: false }).stream(request, {}));
      expect(fetch).toHaveBeenCalled();
      expect(String((fetch.mock.calls[0] as unknown[])[0]).startsWith(base), provider).toBe(true);
    }
  });
});

describe('every media model refuses every path trick before it fetches', () => {
  const factories: [string, (id: string, fetch: typeof globalThis.fetch) => unknown][] = [
    ['openai embeddings', (id, fetch) => openaiEmbeddingModel(id, { apiKey: 'k', fetch })],
    ['mistral embeddings', (id, fetch) => mistralEmbeddingModel(id, { apiKey: 'k', fetch })],
    ['google embeddings', (id, fetch) => googleEmbeddingModel(id, { apiKey: 'k', fetch })],
    ['ollama embeddings', (id, fetch) => ollamaEmbeddingModel(id, { fetch })],
    ['openai speech', (id, fetch) => openaiSpeechModel(id, { apiKey: 'k', fetch })],
    ['openai transcription', (id, fetch) => openaiTranscriptionModel(id, { apiKey: 'k', fetch })],
    ['gemini speech', (id, fetch) => geminiSpeechModel(id, { apiKey: 'k', fetch })],
    ['gemini transcription', (id, fetch) => geminiTranscriptionModel(id, { apiKey: 'k', fetch })],
    ['openai moderation', (id, fetch) => resolveModerationModel(`openai:${id}`, { apiKey: 'k', fetch })],
    ['openai images', (id, fetch) => openaiImageModel({ modelId: id, apiKey: 'k', fetch })],
    ['gemini images', (id, fetch) => geminiImageModel({ modelId: id, apiKey: 'k', fetch })],
  ];
  const cases = factories.flatMap(([model, make]) => TRICKS.map(([name, id]) => [model, name, id, make] as const));

  it.each(cases)('%s: %s', (_model, _name, id, make) => {
    const fetch = noFetch();
    expect(() => make(id, fetch)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(fetch).not.toHaveBeenCalled();
  });
});
