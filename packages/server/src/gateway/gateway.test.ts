/**
 * The gateway's edges, in process (`app.request`): bounded and validated bodies, keys,
 * per-key allow-lists and rate limits, fallbacks, usage and cost per key, what crosses
 * dialects and what does not, and every streamed answer read back at random byte cuts.
 */
import { DIALECT_IDS, decodeStream, getDialect } from '@parlance/dialects';
import type { ModelSpec } from '@parlance/engine';
import { collectResponse, type Event } from '@parlance/protocol';
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it, vi } from 'vitest';
import { createGateway, type GatewayFinish } from './gateway.ts';
import { staticKeys } from './keys.ts';
import { AUTH, post, target } from '../../test/gateway-calls.ts';

const TEXT = { text: 'Hello there.', usage: { inputTokens: 21, outputTokens: 9 } };

function cutStream(bytes: Uint8Array, seed: number): ReadableStream<Uint8Array> {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const cuts = [...new Set(Array.from({ length: 6 }, () => Math.floor(random() * bytes.length)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(at, cut));
    at = cut;
  }
  return new ReadableStream({
    pull(controller) {
      const next = pieces.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

describe('the gateway', () => {
  it.each(DIALECT_IDS)('streams a %s caller an answer that decodes the same at random byte cuts', async (caller) => {
    const provider = mockProviderServer({ dialect: 'anthropic_messages', script: [{ ...TEXT, reasoning: 'Think.', reasoningSignature: 'sig1', toolCalls: [{ id: 'call_1', name: 'f', input: { a: 'é€😀' } }] }] });
    const app = createGateway({ routes: { m: target('anthropic_messages', provider) }, authorize: staticKeys({ k1: { id: 'a' } }) });
    const response = await post(app, caller, 'm', true);
    expect(response.status).toBe(200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const whole = await collectResponse(decodeStream(caller, cutStream(bytes, 0)));
    expect(whole.message.parts.find((p) => p.type === 'tool-call')).toMatchObject({ name: 'f', input: { a: 'é€😀' } });
    for (const seed of [1, 2, 3, 4]) {
      const cut = await collectResponse(decodeStream(caller, cutStream(bytes, seed)));
      expect(cut.message.parts).toEqual(whole.message.parts);
      expect(cut.finishReason).toBe(whole.finishReason);
    }
  });

  it('refuses bodies over the limit, invalid JSON and malformed requests in the caller format', async () => {
    const provider = mockProviderServer({ dialect: 'openai_completions', script: [TEXT] });
    const app = createGateway({ routes: { m: target('openai_completions', provider) }, authorize: staticKeys({ k1: { id: 'a' } }), maxBodyBytes: 1000 });
    const big = await post(app, 'anthropic_messages', 'm', false, { system: 'x'.repeat(2000) }, { ...AUTH, 'content-length': '2100' });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const notJson = await app.request('/v1/chat/completions', { method: 'POST', headers: AUTH, body: '{"model":' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('JSON') } });
    const malformed = await app.request('/api/chat', { method: 'POST', headers: AUTH, body: JSON.stringify({ model: 'm', messages: [{ role: 'narrator', content: 'x' }] }) });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: expect.stringContaining('narrator') });
    const badPath = await app.request('/v1beta/models/%E0%A4%A:generateContent', { method: 'POST', headers: AUTH, body: '{}' });
    expect(badPath.status).toBe(400);
    expect(await badPath.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    const huge = await post(app, 'openai_completions', 'x'.repeat(900), false);
    expect(huge.status).toBe(404);
    expect((await huge.text()).length).toBeLessThan(500);
    expect(provider.requests).toHaveLength(0);
  });

  it('applies the key allow-list and rate limit, with the caller provider statuses', async () => {
    const provider = mockProviderServer({ dialect: 'ollama_chat', script: [TEXT] });
    const app = createGateway({
      routes: { small: target('ollama_chat', provider), big: target('ollama_chat', provider) },
      authorize: staticKeys({ k1: { id: 'limited', models: ['small'], rateLimit: { requests: 2, windowMs: 60_000 } } }),
    });
    const denied = await post(app, 'anthropic_messages', 'big', false);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: { type: 'permission_error' } });
    expect((await post(app, 'ollama_chat', 'small', false)).status).toBe(200);
    expect((await post(app, 'ollama_chat', 'small', false)).status).toBe(200);
    const limited = await post(app, 'ollama_chat', 'small', false);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toEqual({ error: expect.stringContaining('Rate limit') });
    const models = await app.request('/v1/models', { headers: AUTH });
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['small']);
  });

  it('falls back to the next provider when the first fails before answering, and reports usage and cost per key', async () => {
    const down = mockProviderServer({ dialect: 'anthropic_messages', script: [{ error: { code: 'overloaded', message: 'busy' } }] });
    const up = mockProviderServer({ dialect: 'openai_responses', script: [TEXT] });
    const finishes: GatewayFinish[] = [];
    const app = createGateway({
      routes: { smart: [target('anthropic_messages', down, 'claude-test'), target('openai_responses', up, 'gpt-4.1')] },
      authorize: staticKeys({ k1: { id: 'team-a' } }),
      onFinish: (finish) => void finishes.push(finish),
    });
    const response = await post(app, 'openai_completions', 'smart', false);
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: 'Hello there.' } }], model: 'smart' });
    expect(down.requests).toHaveLength(1);
    expect(finishes).toEqual([
      expect.objectContaining({ principal: { id: 'team-a' }, model: 'smart', provider: 'openai', providerModel: 'gpt-4.1', upstreamDialect: 'openai_responses', finishReason: 'stop' }),
    ]);
    // gpt-4.1: $2 in, $8 out per million tokens.
    expect(finishes[0]!.usage).toMatchObject({ inputTokens: 21, outputTokens: 9 });
    expect(finishes[0]!.usage.cost).toBeCloseTo((21 * 2 + 9 * 8) / 1e6, 10);
  });

  it('does not retry upstream by default: the caller SDK retries, as against its own provider', async () => {
    const limited = mockProviderServer({ dialect: 'openai_responses', script: [{ error: { code: 'rate_limited', message: 'Slow down', status: 429 } }] });
    const { retry: _retry, ...spec } = target('openai_responses', limited);
    const app = createGateway({ routes: { m: spec }, authorize: staticKeys({ k1: { id: 'a' } }) });
    const response = await post(app, 'anthropic_messages', 'm', false);
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringContaining('Slow down') } });
    expect(limited.requests).toHaveLength(1);
  });

  it('sends a Chat Completions caller the usage chunk only when it asked for it', async () => {
    const provider = mockProviderServer({ dialect: 'anthropic_messages', script: [TEXT] });
    const app = createGateway({ routes: { m: target('anthropic_messages', provider) }, authorize: staticKeys({ k1: { id: 'a' } }) });
    const plain = await (await post(app, 'openai_completions', 'm', true)).text();
    expect(plain).not.toContain('"usage"');
    expect(plain).toContain('data: [DONE]');
    const asked = await (await post(app, 'openai_completions', 'm', true, { stream_options: { include_usage: true } })).text();
    expect(asked).toContain('"usage":{"prompt_tokens":21,"completion_tokens":9,"total_tokens":30}');
  });

  it('passes what has no protocol form to a provider of the caller dialect only', async () => {
    const same = mockProviderServer({ dialect: 'openai_completions', script: [TEXT] });
    const other = mockProviderServer({ dialect: 'anthropic_messages', script: [TEXT] });
    const app = createGateway({ routes: { same: target('openai_completions', same), other: target('anthropic_messages', other) }, authorize: staticKeys({ k1: { id: 'a' } }) });
    await (await post(app, 'openai_completions', 'same', false, { seed: 7, logit_bias: { '50256': -100 } })).text();
    await (await post(app, 'openai_completions', 'other', false, { seed: 7 })).text();
    expect(same.requests[0]?.body).toMatchObject({ seed: 7, logit_bias: { '50256': -100 } });
    expect(other.requests[0]?.body).not.toHaveProperty('seed');
  });

  // Every caller format: a re-encoded stream, the same format passed through, and an Anthropic caller, whose
  // message_start is held (at most HOLD_MS) for the input count a Chat Completions upstream reports at the end.
  it.each(DIALECT_IDS)('stops the provider stream when the caller goes away (%s caller)', async (caller) => {
    // Long enough (40 deltas 30 ms apart) that the caller leaves long before the provider would finish.
    const provider = mockProviderServer({ dialect: 'openai_completions', script: [{ text: Array.from({ length: 40 }, (_, i) => `w${i} `), delayMs: 30 }] });
    let stopped = false;
    let finished = false;
    // The provider's response body, watched: the gateway must cancel it (or abort the request) before its end.
    const watched: ModelSpec = {
      ...target('openai_completions', provider),
      fetch: async (input, init) => {
        init?.signal?.addEventListener('abort', () => (stopped = true));
        const response = await provider(new Request(input, init));
        const reader = response.body!.getReader();
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const next = await reader.read();
            if (next.done) {
              // (A read pending when the body is cancelled ends as done too: that is not the provider finishing.)
              if (!stopped) finished = true;
              controller.close();
            } else controller.enqueue(next.value);
          },
          cancel(reason) {
            stopped = true;
            return reader.cancel(reason);
          },
        });
        return new Response(body, { status: response.status, headers: response.headers });
      },
    };
    const app = createGateway({ routes: { m: watched }, authorize: staticKeys({ k1: { id: 'a' } }) });
    const response = await post(app, caller, 'm', true);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(first.value!.byteLength).toBeGreaterThan(0);
    expect(stopped).toBe(false);
    await reader.cancel();
    await vi.waitFor(() => expect(stopped).toBe(true));
    expect(finished).toBe(false);
  });

  it('streams incrementally: the caller reads the first delta while the provider is still answering', async () => {
    const encoder = getDialect('anthropic_messages').createResponseEncoder({ usage: { inputTokens: 3 } });
    const frames = (events: Event[]) => new TextEncoder().encode(events.flatMap((event) => encoder.push(event)).join(''));
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let providerDone = false;
    const gated: ModelSpec = {
      ...target('anthropic_messages', mockProviderServer({ dialect: 'anthropic_messages', script: [TEXT] })),
      fetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(frames([{ type: 'message-start' }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'first' }]));
              await held;
              controller.enqueue(frames([{ type: 'text-delta', id: 't', delta: ' second' }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: 'stop', usage: { outputTokens: 2 } }]));
              providerDone = true;
              controller.close();
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
    };
    const app = createGateway({ routes: { m: gated }, authorize: staticKeys({ k1: { id: 'a' } }) });
    const response = await post(app, 'openai_responses', 'm', true);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('"delta":"first"')) {
      const { done, value } = await reader.read();
      expect(done).toBe(false);
      text += new TextDecoder().decode(value);
    }
    expect(providerDone).toBe(false);
    release();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(providerDone).toBe(true);
    expect(text).toContain('"delta":" second"');
    expect(text).toContain('response.completed');
  });
});

