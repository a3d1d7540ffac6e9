import { decodeStream, getDialect } from '@parlance/dialects';
import { collectResponse, type Event } from '@parlance/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { serveMockProvider, type MockProviderServer } from './serve.ts';

let server: MockProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('serveMockProvider', () => {
  it('listens on 127.0.0.1 and streams the script over real HTTP', async () => {
    server = await serveMockProvider({ dialect: 'anthropic_messages', script: [{ reasoning: 'Hmm.', text: 'Hi over TCP.', usage: { inputTokens: 3, outputTokens: 5 } }] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${server.url}${getDialect('anthropic_messages').path('claude-test')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test' },
      body: JSON.stringify({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(response.status).toBe(200);
    const collected = await collectResponse(decodeStream('anthropic_messages', response.body!));
    expect(collected.message.parts).toMatchObject([
      { type: 'reasoning', text: 'Hmm.' },
      { type: 'text', text: 'Hi over TCP.' },
    ]);
    expect(collected.finishReason).toBe('stop');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ model: 'claude-test', headers: { 'x-api-key': 'test' }, body: { stream: true } });
  });

  it('sends HTTP errors with their status and body', async () => {
    server = await serveMockProvider({ dialect: 'google_gemini', script: [{ error: { code: 'overloaded', message: 'The model is overloaded' } }] });
    const response = await fetch(`${server.url}${getDialect('google_gemini').path('gemini-test')}`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: { code: 503, message: 'The model is overloaded', status: 'UNAVAILABLE' } });
  });

  it('stops the stream when the client aborts, keeping what arrived', async () => {
    server = await serveMockProvider({ dialect: 'openai_completions', script: [{ text: ['first ', 'second ', 'third'], delayMs: 50 }] });
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{"stream":true}', signal: controller.signal });
    const events: Event[] = [];
    for await (const event of decodeStream('openai_completions', response.body!, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    const collected = await collectResponse(events);
    expect(collected.finishReason).toBe('cancelled');
    expect(collected.message.parts).toMatchObject([{ type: 'text', text: 'first ' }]);
  });

  it('closes with a stream still open', async () => {
    server = await serveMockProvider({ dialect: 'ollama_chat', script: [{ text: ['a', 'b'], delayMs: 60_000 }] });
    const response = await fetch(`${server.url}/api/chat`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    const closing = server.close();
    server = undefined;
    await expect(closing).resolves.toBeUndefined();
    await response.body?.cancel().catch(() => {});
  });
});
