/**
 * Each built-in provider follows its official SDK's base-URL variable: with the variable set, our
 * request goes to the very URL the SDK's own request goes to (both against one real server).
 * OPENAI_BASE_URL (openai), ANTHROPIC_BASE_URL (@anthropic-ai/sdk), GOOGLE_GEMINI_BASE_URL
 * (@google/genai), OLLAMA_HOST (Ollama's clients; ollama-js takes it as `host`).
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveBaseURL } from '../../src/providers/auth.ts';
import { ollamaHostURL } from '../../src/providers/builtin/ollama.ts';
import { anthropic, google, ollama, openai } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { sendJson, serverPerTest, type TestServer } from './server.ts';

const serve = serverPerTest();
afterEach(() => vi.unstubAllEnvs());

/** A server that refuses everything with a 400 (which no client retries) and records the URLs. */
const refusing = () => serve((_req, res) => sendJson(res, 400, { error: { message: 'no', type: 'invalid_request_error' } }));

/** The SDK's call (it throws on the 400), then ours; both must have hit the same URL. */
async function sameURL(server: TestServer, sdkCall: () => Promise<unknown>, ours: () => Promise<unknown>) {
  await sdkCall().catch(() => {});
  await ours();
  expect(server.requests).toHaveLength(2);
  const [sdk, parlance] = server.requests.map((r) => r.url);
  expect(parlance).toBe(sdk);
  return parlance!;
}

describe('base URLs from the environment, as the official SDKs read them', () => {
  it('OPENAI_BASE_URL (a proxy path included)', async () => {
    const server = await refusing();
    vi.stubEnv('OPENAI_BASE_URL', `${server.url}/proxy/v1`);
    vi.stubEnv('OPENAI_API_KEY', 'sk-test');
    const url = await sameURL(
      server,
      () => new OpenAI({ maxRetries: 0 }).responses.create({ model: 'gpt-5-mini', input: 'Hi', stream: true }),
      () => drain(openai.model('gpt-5-mini').stream({ messages: ask('Hi') })),
    );
    expect(url).toBe('/proxy/v1/responses');
  });

  it('ANTHROPIC_BASE_URL', async () => {
    const server = await refusing();
    vi.stubEnv('ANTHROPIC_BASE_URL', server.url);
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-test');
    const url = await sameURL(
      server,
      () => new Anthropic({ maxRetries: 0 }).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], stream: true }),
      () => drain(anthropic.model('claude-sonnet-4-6').stream({ messages: ask('Hi') })),
    );
    expect(url).toBe('/v1/messages');
  });

  it('GOOGLE_GEMINI_BASE_URL', async () => {
    const server = await refusing();
    vi.stubEnv('GOOGLE_GEMINI_BASE_URL', server.url);
    vi.stubEnv('GEMINI_API_KEY', 'gm-test');
    const url = await sameURL(
      server,
      async () => {
        const stream = await new GoogleGenAI({ apiKey: 'gm-test', httpOptions: { retryOptions: { attempts: 1 } } }).models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Hi' });
        for await (const _ of stream);
      },
      () => drain(google.model('gemini-2.5-flash').stream({ messages: ask('Hi') })),
    );
    expect(url).toMatch(/^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse$/);
  });

  it.each([['host:port', (port: string) => `127.0.0.1:${port}`], [':port', (port: string) => `:${port}`], ['a URL', (port: string) => `http://127.0.0.1:${port}`]])(
    'OLLAMA_HOST as %s',
    async (_, host) => {
      const server = await refusing();
      vi.stubEnv('OLLAMA_HOST', host(new URL(server.url).port));
      const url = await sameURL(
        server,
        () => new Ollama({ host: process.env.OLLAMA_HOST }).chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }], stream: true }).then(async (s) => { for await (const _ of s); }),
        () => drain(ollama.model('llama3.2').stream({ messages: ask('Hi') })),
      );
      expect(url).toBe('/api/chat');
    },
  );

  it("OLLAMA_HOST's defaults: no scheme means http on port 11434; a scheme without a port, that scheme's port", () => {
    expect(ollamaHostURL('gpu-box')).toBe('http://gpu-box:11434');
    expect(ollamaHostURL('https://ollama.example.com')).toBe('https://ollama.example.com:443');
    expect(ollamaHostURL('http://10.0.0.2:8080/ollama/')).toBe('http://10.0.0.2:8080/ollama');
  });

  it('settings.baseURL wins over the variable; an empty or missing variable means the default', () => {
    expect(resolveBaseURL(openai.definition, { baseURL: 'http://explicit/v1/', env: { OPENAI_BASE_URL: 'http://env/v1' } })).toBe('http://explicit/v1');
    expect(resolveBaseURL(openai.definition, { env: { OPENAI_BASE_URL: ' ' } })).toBe('https://api.openai.com/v1');
    expect(resolveBaseURL(anthropic.definition, { env: {} })).toBe('https://api.anthropic.com');
    // Workers pass their bindings as `env`.
    expect(resolveBaseURL(google.definition, { env: { GOOGLE_GEMINI_BASE_URL: 'https://gateway.example/google' } })).toBe('https://gateway.example/google');
  });
});
