/**
 * What the upstream said reaches the caller as the caller's provider would say it: its
 * Retry-After, its input count where the caller's clients read it, and the nearest error code.
 */
import { DIALECT_IDS, type DialectId } from '@parlance/dialects';
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';
import { post, sseData, target } from '../../test/gateway-calls.ts';

const TEXT = { text: 'Hello there.', usage: { inputTokens: 21, outputTokens: 9 } };
const authorize = staticKeys({ k1: { id: 'a', models: ['m'] } });

describe('upstream facts reach the caller', () => {
  it.each(DIALECT_IDS)("passes the upstream's Retry-After to a %s caller, streamed and not, and invents none", async (caller) => {
    const limited = (retryAfter?: string) => () =>
      new Response(JSON.stringify({ error: { message: 'Slow down', type: 'requests', code: 'rate_limit_exceeded' } }), {
        status: 429,
        headers: { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) },
      });
    const app = createGateway({ routes: { m: target('openai_completions', limited('7')), n: target('openai_completions', limited()) }, authorize: staticKeys({ k1: { id: 'a' } }) });
    for (const stream of [true, false]) {
      const response = await post(app, caller, 'm', stream);
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(response.headers.get('retry-after-ms')).toBe('7000');
      const bare = await post(app, caller, 'n', stream);
      expect(bare.status).toBe(429);
      expect(bare.headers.get('retry-after')).toBeNull();
    }
  });

  it.each(DIALECT_IDS)('an Anthropic caller reads the input count in message_start from a %s upstream', async (upstream) => {
    const provider = mockProviderServer({ dialect: upstream, script: [TEXT] });
    const app = createGateway({ routes: { m: target(upstream, provider) }, authorize });
    const frames = sseData(await (await post(app, 'anthropic_messages', 'm', true)).text());
    expect(frames[0]).toMatchObject({ type: 'message_start', message: { usage: { input_tokens: 21 } } });
    expect(frames.find((f) => f.type === 'message_delta')).toMatchObject({ usage: { input_tokens: 21, output_tokens: 9 } });
    expect(frames.filter((f) => f.type === 'content_block_delta').map((f) => (f.delta as { text: string }).text).join('')).toBe('Hello there.');
  });

  it('answers a model the key may not use with each caller provider permission error', async () => {
    const provider = mockProviderServer({ dialect: 'openai_completions', script: [TEXT] });
    const app = createGateway({ routes: { m: target('openai_completions', provider), other: target('openai_completions', provider) }, authorize });
    const expected: Record<DialectId, unknown> = {
      openai_completions: { error: { type: 'invalid_request_error', code: 'model_not_found' } },
      openai_responses: { error: { type: 'invalid_request_error', code: 'model_not_found' } },
      anthropic_messages: { type: 'error', error: { type: 'permission_error' } },
      google_gemini: { error: { code: 403, status: 'PERMISSION_DENIED' } },
      ollama_chat: { error: expect.stringContaining('may not use') },
    };
    for (const caller of DIALECT_IDS) {
      const response = await post(app, caller, 'other', false);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject(expected[caller] as object);
    }
    expect(provider.requests).toHaveLength(0);
  });

  it.each(DIALECT_IDS)("a %s caller of a provider of its own format gets the provider's response id and model; across formats, the route's", async (caller) => {
    const same = mockProviderServer({ dialect: caller, script: [TEXT] });
    const other = mockProviderServer({ dialect: caller === 'ollama_chat' ? 'openai_completions' : 'ollama_chat', script: [TEXT] });
    const app = createGateway({ routes: { m: target(caller, same, 'provider-model-1'), x: target(caller === 'ollama_chat' ? 'openai_completions' : 'ollama_chat', other, 'provider-model-1') }, authorize: staticKeys({ k1: { id: 'a' } }) });
    // The mock provider's own ids (its encoders' defaults), where the format has one the gateway would replace.
    const providerIds: Partial<Record<DialectId, string>> = { anthropic_messages: 'msg_parlance0001', google_gemini: 'parlance-response-0001' };
    for (const stream of [false, true]) {
      const text = await (await post(app, caller, 'm', stream)).text();
      expect(text).toContain('provider-model-1');
      if (providerIds[caller]) expect(text).toContain(providerIds[caller]);
      const crossed = await (await post(app, caller, 'x', stream)).text();
      expect(crossed).not.toContain('provider-model-1');
    }
  });
});
