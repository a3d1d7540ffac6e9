// The Next.js route example, called as Next.js calls it: with a Request. The provider is the
// testing kit's mock speaking Anthropic's wire format, put in place of the global fetch.
import { mockProviderServer } from '@parlance/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chatBody, readFrames, textOf } from '../test/sse.ts';
import { GET, POST } from './nextjs-route.ts';

let upstream: ReturnType<typeof mockProviderServer>;

beforeEach(() => {
  upstream = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: 'Hello from the route handler', usage: { inputTokens: 7, outputTokens: 5 } }] });
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => upstream(new Request(input, init)));
  vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-test-key');
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

describe('the Next.js route example', () => {
  it('POST /api/chat/chat streams the chat as SSE and ends with one chat-finish', async () => {
    const res = await POST(
      new Request('http://localhost/api/chat/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chatBody('Hi Next', { model: 'anthropic:claude-sonnet-4-5' }),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { frames } = await readFrames(res);
    expect(textOf(frames)).toBe('Hello from the route handler');
    expect(frames.filter((f) => f.data.type === 'chat-finish')).toHaveLength(1);
    expect(frames.at(-1)!.data).toMatchObject({ type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 7, outputTokens: 5 } });

    // The request went to Anthropic's Messages API with the server's key and the system prompt.
    expect(upstream.requests).toHaveLength(1);
    const sent = upstream.requests[0]!;
    expect(sent.url).toBe('https://api.anthropic.com/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-test-key');
    expect(sent.model).toBe('claude-sonnet-4-5');
    expect(JSON.stringify((sent.body as { system?: unknown }).system)).toContain('You are a helpful assistant.');
  });

  it('GET /api/chat/models lists the offered models with catalog capabilities', async () => {
    const res = await GET(new Request('http://localhost/api/chat/models'));
    expect(res.status).toBe(200);
    const { models } = (await res.json()) as { models: { id: string; provider: string; capabilities: { known: boolean } }[] };
    expect(models.map((m) => m.id)).toEqual(['anthropic:claude-sonnet-4-5', 'openai:gpt-5-mini']);
    expect(models.every((m) => m.capabilities.known)).toBe(true);
  });

  it('refuses a bad body with a 400 before calling the provider', async () => {
    const res = await POST(new Request('http://localhost/api/chat/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    // A body not declared as JSON (what a cross-site form can send) is refused before it is read.
    const plain = await POST(new Request('http://localhost/api/chat/chat', { method: 'POST', body: '{}' }));
    expect(plain.status).toBe(415);
    expect(upstream.requests).toHaveLength(0);
  });
});
