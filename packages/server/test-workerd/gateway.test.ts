// The gateway inside workerd (the Workers runtime): an OpenAI Chat Completions caller and a
// Gemini caller, each served by a mock provider of another dialect. The provider is the
// mock handler called in-process through the provider's injected `fetch`.
import { decodeStream } from '@parlance/dialects';
import { collectResponse } from '@parlance/protocol';
// The handler module alone: the package index also exports the Node-only socket server, whose types need @types/node.
import { mockProviderServer } from '../../testing/src/mock-server/handler.ts';
import { expect, it } from 'vitest';
import { createGateway, staticKeys } from '../src/gateway/index.ts';

const anthropic = mockProviderServer({
  dialect: 'anthropic_messages',
  script: [{ reasoning: 'Short answer.', reasoningSignature: 'sig_w1', text: ['Hello ', 'from ', 'workerd.'], usage: { inputTokens: 5, outputTokens: 3 } }],
});
const ollama = mockProviderServer({ dialect: 'ollama_chat', script: [{ toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }], usage: { inputTokens: 4, outputTokens: 2 } }] });

const onFinish: unknown[] = [];
const gateway = createGateway({
  routes: {
    claude: { provider: 'anthropic', model: 'claude-test', baseURL: 'https://anthropic.mock', apiKey: 'provider-key', retry: false, fetch: (input, init) => anthropic(new Request(input, init)) },
    local: { provider: 'ollama', model: 'qwen-test', baseURL: 'https://ollama.mock', retry: false, fetch: (input, init) => ollama(new Request(input, init)) },
  },
  authorize: staticKeys({ 'gw-key': { id: 'edge' } }),
  onFinish: (finish) => void onFinish.push(finish),
});

it('answers an OpenAI caller from an Anthropic provider, streamed, inside workerd', async () => {
  expect((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent).toBe('Cloudflare-Workers');
  const response = await gateway.request('/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: 'Bearer gw-key', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const collected = await collectResponse(decodeStream('openai_completions', response.body!));
  expect(collected.message.parts).toMatchObject([
    { type: 'reasoning', text: 'Short answer.' },
    { type: 'text', text: 'Hello from workerd.' },
  ]);
  expect(collected.usage).toMatchObject({ inputTokens: 5, outputTokens: 3 });
  expect(anthropic.requests.at(-1)?.headers['x-api-key']).toBe('provider-key');
  expect(onFinish.at(-1)).toMatchObject({ principal: { id: 'edge' }, model: 'claude', dialect: 'openai_completions', upstreamDialect: 'anthropic_messages' });
});

it('answers a Gemini caller from an Ollama provider, streamed and not, and refuses a wrong key in Gemini shape', async () => {
  const streamed = await gateway.request('/v1beta/models/local:streamGenerateContent?alt=sse', {
    method: 'POST',
    headers: { 'x-goog-api-key': 'gw-key', 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }] }),
  });
  const collected = await collectResponse(decodeStream('google_gemini', streamed.body!));
  expect(collected.message.parts).toMatchObject([{ type: 'tool-call', name: 'weather', input: { city: 'Oslo' } }]);
  const single = await gateway.request('/v1beta/models/local:generateContent', {
    method: 'POST',
    headers: { 'x-goog-api-key': 'gw-key', 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }] }),
  });
  expect(await single.json()).toMatchObject({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'Oslo' } } }] } }], usageMetadata: { promptTokenCount: 4 } });
  const refused = await gateway.request('/v1beta/models/local:generateContent', { method: 'POST', headers: { 'x-goog-api-key': 'nope' }, body: '{}' });
  expect(refused.status).toBe(401);
  expect(await refused.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
});
