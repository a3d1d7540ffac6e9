import { DIALECT_IDS, decodeStream, getDialect, type DialectId } from '@parlance/dialects';
import { collectResponse, type Event, type Response as ParlanceResponse } from '@parlance/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ScriptedTurn } from '../script.ts';
import { mockProviderServer } from './handler.ts';

const BASE = 'https://mock.provider.test';
const MODEL = 'mock-model-1';

function post(dialect: DialectId, body: unknown = { model: MODEL, messages: [], stream: true }, init: RequestInit & { base?: string } = {}): Request {
  const { base = BASE, ...rest } = init;
  return new Request(base + getDialect(dialect).path(MODEL, { stream: true }), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test-key' },
    body: JSON.stringify(body),
    ...rest,
  });
}

async function collect(dialect: DialectId, response: Response): Promise<ParlanceResponse> {
  return collectResponse(decodeStream(dialect, response.body!));
}

function textOf(response: ParlanceResponse): string {
  return response.message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

afterEach(() => {
  vi.useRealTimers();
});

describe.each(DIALECT_IDS)('mockProviderServer: %s', (dialect) => {
  it('answers at the dialect path with the scripted turn in the real wire format, and records the request', async () => {
    const handler = mockProviderServer({
      dialect,
      script: [{ text: 'Hello from the mock.', toolCalls: [{ name: 'lookup', input: { q: 'tea' } }], usage: { inputTokens: 9, outputTokens: 4 } }],
    });
    const response = await handler(post(dialect, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(dialect === 'ollama_chat' ? 'application/x-ndjson' : 'text/event-stream');
    const collected = await collect(dialect, response);
    expect(collected.error).toBeUndefined();
    expect(textOf(collected)).toBe('Hello from the mock.');
    expect(collected.message.parts.find((part) => part.type === 'tool-call')).toMatchObject({ name: 'lookup', input: { q: 'tea' } });
    expect(collected.finishReason).toBe('tool-calls');
    expect(collected.usage).toMatchObject({ inputTokens: 9, outputTokens: 4 });
    expect(handler.requests).toHaveLength(1);
    expect(handler.requests[0]).toMatchObject({
      method: 'POST',
      model: MODEL,
      body: { messages: [{ role: 'user', content: 'hi' }] },
      headers: { authorization: 'Bearer test-key' },
    });
  });

  it('answers an HTTP error with the provider error body when the turn fails before streaming', async () => {
    const handler = mockProviderServer({ dialect, script: [{ error: { code: 'rate_limited', message: 'Too many requests', status: 429 } }] });
    const response = await handler(post(dialect));
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.text()).toContain('Too many requests');
  });

  it('fails mid-stream after the scripted number of events, keeping what was sent', async () => {
    const handler = mockProviderServer({
      dialect,
      script: [{ text: ['Partial ', 'answer ', 'then'], error: { code: 'overloaded', message: 'Overloaded', afterEvents: 4 } }],
    });
    const collected = await collect(dialect, await handler(post(dialect)));
    expect(collected.finishReason).toBe('error');
    expect(textOf(collected)).toBe('Partial answer ');
    expect(collected.error).toBeDefined();
  });
});

describe('mockProviderServer routing and script', () => {
  it('accepts the dialect path under any base path, and answers others with a provider 404', async () => {
    const handler = mockProviderServer({ dialect: 'openai_completions', script: [{ text: 'ok' }] });
    const nested = await handler(post('openai_completions', undefined, { base: 'http://127.0.0.1:9/proxy/v1' }));
    expect(nested.status).toBe(200);
    await nested.body?.cancel();
    const wrong = await handler(new Request(`${BASE}/v1/embeddings`, { method: 'POST', body: '{}' }));
    expect(wrong.status).toBe(404);
    expect(JSON.parse(await wrong.text())).toMatchObject({ error: { message: expect.stringContaining('/chat/completions') } });
    const get = await handler(new Request(`${BASE}/chat/completions`));
    expect(get.status).toBe(404);
    expect(handler.requests.map((request) => request.path)).toEqual(['/proxy/v1/chat/completions', '/v1/embeddings', '/chat/completions']);
  });

  it('reads the model from the path for Gemini and requires its alt=sse query', async () => {
    const handler = mockProviderServer({ dialect: 'google_gemini', script: [{ text: 'ok' }] });
    const ok = await handler(new Request(`${BASE}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { method: 'POST', body: '{}' }));
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    expect(handler.requests[0]?.model).toBe('gemini-2.5-flash');
    const json = await handler(new Request(`${BASE}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, { method: 'POST', body: '{}' }));
    expect(json.status).toBe(404);
  });

  it('plays one turn per request, repeating the last, and starts over on reset', async () => {
    const handler = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: 'first' }, { text: 'second' }] });
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) texts.push(textOf(await collect('anthropic_messages', await handler(post('anthropic_messages')))));
    expect(texts).toEqual(['first', 'second', 'second']);
    handler.reset();
    expect(handler.requests).toHaveLength(0);
    expect(textOf(await collect('anthropic_messages', await handler(post('anthropic_messages'))))).toBe('first');
  });

  it('lets a script function answer from the recorded request', async () => {
    const handler = mockProviderServer({
      dialect: 'openai_responses',
      script: (request, call): ScriptedTurn => ({ text: `call ${call}: ${(request.body as { input: string }).input}` }),
    });
    const first = await collect('openai_responses', await handler(post('openai_responses', { model: MODEL, input: 'ping', stream: true })));
    const second = await collect('openai_responses', await handler(post('openai_responses', { model: MODEL, input: 'pong', stream: true })));
    expect([textOf(first), textOf(second)]).toEqual(['call 0: ping', 'call 1: pong']);
  });

  it('reports the requested model in the stream', async () => {
    const handler = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: 'ok' }] });
    expect((await collect('anthropic_messages', await handler(post('anthropic_messages', { model: 'claude-test', stream: true })))).model).toBe('claude-test');
  });

  it('waits firstEventDelayMs before the first event and delayMs before each next one', async () => {
    vi.useFakeTimers();
    const handler = mockProviderServer({ dialect: 'openai_completions', script: [{ text: ['a', 'b'], firstEventDelayMs: 1000, delayMs: 50 }] });
    const reader = (await handler(post('openai_completions'))).body!.getReader();
    let settled = false;
    const first = reader.read().then((result) => {
      settled = true;
      return result;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(new TextDecoder().decode((await first).value)).toContain('"role":"assistant"');
    // text-start has no Chat Completions frame, so the next frame (the first delta) is two delays away.
    settled = false;
    const second = reader.read().then((result) => {
      settled = true;
      return result;
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(new TextDecoder().decode((await second).value)).toContain('"content":"a"');
    await reader.cancel();
  });

  it('stops streaming when the request is aborted, even mid-delay', async () => {
    const controller = new AbortController();
    const handler = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: ['one ', 'two ', 'three'], delayMs: 60_000 }] });
    vi.useFakeTimers();
    const response = await handler(post('anthropic_messages', undefined, { signal: controller.signal }));
    const events: Event[] = [];
    const decoding = (async () => {
      for await (const event of decodeStream('anthropic_messages', response.body!, { signal: controller.signal })) events.push(event);
    })();
    await vi.advanceTimersByTimeAsync(60_000);
    controller.abort();
    await decoding;
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'cancelled' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('errors the body of an aborted request instead of sending more frames', async () => {
    const controller = new AbortController();
    const handler = mockProviderServer({ dialect: 'ollama_chat', script: [{ text: ['one ', 'two ', 'three'] }] });
    const reader = (await handler(post('ollama_chat', undefined, { signal: controller.signal }))).body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });
});
