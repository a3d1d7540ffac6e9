/**
 * The gateway's `allowProviderModels` attack from issue #24: a caller-chosen model name
 * (`google:../../../v1beta/cachedContents?x=`) made the server send its own Gemini key to another
 * endpoint and hand the answer back. Every path trick, in every caller format, streamed and not,
 * through every provider a name can pick: refused with a 4xx in the caller's format, and the
 * upstream `fetch` (a spy) never called.
 */
import type { DialectId } from '@parlance/dialects';
import { describe, expect, it, vi } from 'vitest';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';

const TRICKS = [
  '../../../v1beta/cachedContents?x=',
  '../admin',
  '..',
  '%2e%2e/%2e%2e/v1beta/cachedContents',
  'gemini-2.5-flash?key=stolen#',
  'gemini-2.5-flash#x',
  'a\\..\\..\\admin',
  'a//b',
  '//evil.example/x',
  '@evil.example',
  'gemini%00',
  '\uff0e\uff0e/v1beta/cachedContents',
];
const PROVIDERS = ['google', 'openai', 'anthropic', 'ollama', 'openrouter'];
const CALLERS: DialectId[] = ['openai_completions', 'openai_responses', 'anthropic_messages', 'google_gemini', 'ollama_chat'];

function callerRequest(dialect: DialectId, model: string, stream: boolean): { path: string; body: Record<string, unknown> } {
  switch (dialect) {
    case 'openai_completions':
      return { path: '/v1/chat/completions', body: { model, stream, messages: [{ role: 'user', content: 'hi' }] } };
    case 'openai_responses':
      return { path: '/v1/responses', body: { model, stream, input: 'hi' } };
    case 'anthropic_messages':
      return { path: '/v1/messages', body: { model, stream, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] } };
    case 'google_gemini':
      return { path: `/v1beta/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } };
    case 'ollama_chat':
      return { path: '/api/chat', body: { model, stream, messages: [{ role: 'user', content: 'hi' }] } };
  }
}

function gateway() {
  const upstream = vi.fn(async () => Response.json({ cachedContents: [{ name: 'someone-elses' }] }));
  const app = createGateway({
    routes: {},
    allowProviderModels: true,
    providers: { apiKey: 'server-own-provider-key', fetch: upstream, retry: false },
    authorize: staticKeys({ k1: { id: 'caller' } }),
  });
  return { app, upstream };
}

describe('gateway model names cannot bend the upstream URL', () => {
  const cases = CALLERS.flatMap((caller) => [false, true].map((stream) => [caller, stream] as const));

  it.each(cases)('%s (stream %s): every trick through every provider is a 4xx and fetches nothing', async (caller, stream) => {
    const { app, upstream } = gateway();
    for (const provider of PROVIDERS) {
      for (const trick of TRICKS) {
        const { path, body } = callerRequest(caller, `${provider}:${trick}`, stream);
        const res = await app.request(path, { method: 'POST', headers: { authorization: 'Bearer k1', 'x-goog-api-key': 'k1', 'x-api-key': 'k1', 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const text = await res.text();
        expect(res.status, `${provider}:${trick}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${provider}:${trick}`).toBeLessThan(500);
        expect(text).not.toContain('someone-elses');
      }
    }
    expect(upstream).not.toHaveBeenCalled();
  });

  it('a valid provider:model still reaches the provider at its own base URL', async () => {
    const { app, upstream } = gateway();
    const { path, body } = callerRequest('openai_completions', 'google:gemini-2.5-flash', false);
    await app.request(path, { method: 'POST', headers: { authorization: 'Bearer k1', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(upstream).toHaveBeenCalledOnce();
    // A caller that asked for one body: the provider is asked for one (generateContent, not the stream).
    expect(String((upstream.mock.calls[0] as unknown[])[0])).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
  });
});
