/**
 * The gateway asks the upstream what the caller asked: a caller who wants one JSON body makes the
 * provider send one (not a stream assembled by the gateway), and a caller of the provider's own API
 * gets the provider's body unchanged where nothing in it needs translating.
 */
import { DIALECT_IDS, type DialectId } from '@parlance/dialects';
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import type { GatewayFinish } from './options.ts';
import { staticKeys } from './keys.ts';
import { appModel, post, sseData, target } from '../../test/gateway-calls.ts';
import { createMemoryRunStore } from '../memory-run-store.ts';

const TURN = {
  text: 'Two cities.',
  toolCalls: [
    { id: 'call_a', name: 'weather', input: { city: 'Paris' } },
    { id: 'call_b', name: 'weather', input: { city: 'Rome' } },
  ],
  usage: { inputTokens: 21, outputTokens: 9 },
};
const authorize = staticKeys({ k1: { id: 'a' } });

/** Whether the provider was asked for a stream, the way its API reads the request. */
function askedToStream(upstream: DialectId, request: { path: string; body: unknown }): boolean {
  const body = request.body as { stream?: unknown; stream_options?: unknown };
  if (upstream === 'google_gemini') return request.path.includes(':streamGenerateContent');
  if (upstream === 'openai_completions' && body.stream !== true) expect(body.stream_options).toBeUndefined();
  return upstream === 'ollama_chat' ? body.stream !== false : body.stream === true;
}

/** The answer's text and tool-call names from a caller's non-streamed body. */
function answerOf(caller: DialectId, body: any): { text: string; tools: string[] } {
  switch (caller) {
    case 'openai_completions':
      return { text: body.choices[0].message.content ?? '', tools: (body.choices[0].message.tool_calls ?? []).map((c: any) => c.function.name) };
    case 'openai_responses':
      return {
        text: body.output.filter((i: any) => i.type === 'message').flatMap((i: any) => i.content.map((c: any) => c.text)).join(''),
        tools: body.output.filter((i: any) => i.type === 'function_call').map((i: any) => i.name),
      };
    case 'anthropic_messages':
      return { text: body.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(''), tools: body.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.name) };
    case 'google_gemini': {
      const parts = body.candidates[0].content.parts;
      return { text: parts.filter((p: any) => typeof p.text === 'string').map((p: any) => p.text).join(''), tools: parts.filter((p: any) => p.functionCall).map((p: any) => p.functionCall.name) };
    }
    case 'ollama_chat':
      return { text: body.message.content, tools: (body.message.tool_calls ?? []).map((c: any) => c.function.name) };
  }
}

describe('a non-streamed caller makes a non-streamed upstream call', () => {
  it.each(DIALECT_IDS)('from a %s upstream: every caller format, one JSON body asked for and answered; streamed callers still stream', async (upstream) => {
    const provider = mockProviderServer({ dialect: upstream, script: [TURN] });
    const finishes: GatewayFinish[] = [];
    const app = createGateway({ routes: { m: target(upstream, provider) }, authorize, onFinish: (finish) => void finishes.push(finish) });
    for (const caller of DIALECT_IDS) {
      provider.reset();
      const response = await post(app, caller, 'm', false);
      expect(response.status, caller).toBe(200);
      expect(response.headers.get('content-type'), caller).toContain('application/json');
      expect(answerOf(caller, await response.json()), caller).toEqual({ text: 'Two cities.', tools: ['weather', 'weather'] });
      expect(provider.requests, caller).toHaveLength(1);
      expect(askedToStream(upstream, provider.requests[0]!), `${caller} -> ${upstream}`).toBe(false);
      expect(finishes.at(-1)?.usage, caller).toMatchObject({ inputTokens: 21, outputTokens: 9 });

      provider.reset();
      const streamed = await post(app, caller, 'm', true);
      await streamed.text();
      expect(askedToStream(upstream, provider.requests[0]!), `${caller} -> ${upstream} (streamed)`).toBe(true);
    }
  });
});

/** A provider body with fields the protocol has no form for, in each API's shape. */
const VENDOR_BODY: Record<DialectId, Record<string, unknown>> = {
  openai_completions: {
    id: 'chatcmpl-upstream-7',
    object: 'chat.completion',
    created: 1_712_000_000,
    model: 'gpt-upstream-2025-01-01',
    system_fingerprint: 'fp_upstream',
    service_tier: 'default',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 } },
  },
  openai_responses: {
    id: 'resp_upstream7',
    object: 'response',
    created_at: 1_712_000_000,
    status: 'completed',
    model: 'gpt-upstream-2025-01-01',
    service_tier: 'default',
    output: [{ id: 'msg_up', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi.', annotations: [], logprobs: [] }] }],
    usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 7 },
  },
  anthropic_messages: {
    id: 'msg_upstream7',
    type: 'message',
    role: 'assistant',
    model: 'claude-upstream-1',
    content: [{ type: 'text', text: 'Hi.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
  },
  google_gemini: {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Hi.' }] }, finishReason: 'STOP', avgLogprobs: -0.25, index: 0 }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 5 }] },
    modelVersion: 'gemini-upstream-1',
    responseId: 'gem-upstream-7',
  },
  ollama_chat: {
    model: 'llama-upstream:8b',
    created_at: '2025-01-01T00:00:00Z',
    message: { role: 'assistant', content: 'Hi.' },
    done: true,
    done_reason: 'stop',
    total_duration: 123456,
    load_duration: 1000,
    prompt_eval_count: 5,
    prompt_eval_duration: 2000,
    eval_count: 2,
    eval_duration: 3000,
  },
};

const answering = (dialect: DialectId) => () => Response.json(VENDOR_BODY[dialect]);

describe("a caller of the provider's own API gets the provider's body", () => {
  it.each(DIALECT_IDS)('%s: passed through unchanged to its own format, re-encoded for the others, usage counted either way', async (upstream) => {
    const finishes: GatewayFinish[] = [];
    const app = createGateway({ routes: { m: target(upstream, answering(upstream)) }, authorize, onFinish: (finish) => void finishes.push(finish) });
    const same = await post(app, upstream, 'm', false);
    expect(same.status).toBe(200);
    expect(await same.json()).toEqual(VENDOR_BODY[upstream]);
    expect(finishes.at(-1)?.usage).toMatchObject({ inputTokens: 5, outputTokens: 2 });
    for (const caller of DIALECT_IDS.filter((id) => id !== upstream)) {
      const crossed = await post(app, caller, 'm', false);
      const text = await crossed.text();
      expect(answerOf(caller, JSON.parse(text)).text, caller).toBe('Hi.');
      // The provider's own identity stays behind a translation: the caller sees the route.
      expect(text, caller).not.toMatch(/upstream/);
      expect(finishes.at(-1)?.usage, caller).toMatchObject({ inputTokens: 5, outputTokens: 2 });
    }
  });

  it('a kept Responses answer is re-encoded: its items are named by the gateway', async () => {
    const app = createGateway({ routes: { m: target('openai_responses', answering('openai_responses')) }, authorize, store: createMemoryRunStore() });
    const body = (await (await post(app, 'openai_responses', 'm', false, { store: true })).json()) as { id: string; service_tier?: unknown };
    expect(body.id).not.toBe('resp_upstream7');
    expect(body.id).toMatch(/^resp_/);
    expect(body.service_tier).toBeUndefined();
  });

  it("a fallback chain passes through the body of the model that answered, not an earlier one's", async () => {
    const failing = () => Response.json({ error: { message: 'Busy', type: 'server_error', code: 'overloaded' } }, { status: 503 });
    const app = createGateway({
      routes: { m: [target('openai_completions', failing, 'first'), target('openai_completions', answering('openai_completions'), 'second')] },
      authorize,
    });
    expect(await (await post(app, 'openai_completions', 'm', false)).json()).toEqual(VENDOR_BODY.openai_completions);
  });

  // A failure in a 200 body, in each API's form, then a fallback to a model of the app's own (it reports no body):
  // the caller gets that model's answer, never the failed model's body.
  it.each<[DialectId, unknown]>([
    ['openai_completions', { error: { message: 'Busy', type: 'server_error' } }],
    ['openai_responses', { id: 'resp_1', object: 'response', status: 'failed', error: { code: 'server_error', message: 'Busy' }, output: [] }],
    ['anthropic_messages', { type: 'error', error: { type: 'overloaded_error', message: 'Busy' } }],
    ['google_gemini', { error: { code: 503, message: 'Busy', status: 'UNAVAILABLE' } }],
    ['ollama_chat', { error: 'the runner crashed' }],
  ])("%s: a fallback to the app's own model after a failed body answers with its answer", async (dialect, failed) => {
    const app = createGateway({ routes: { m: [target(dialect, () => Response.json(failed), 'first'), appModel(dialect, ["The app's own answer."])] }, authorize });
    const response = await post(app, dialect, 'm', false);
    expect(response.status).toBe(200);
    expect(answerOf(dialect, await response.json()).text).toBe("The app's own answer.");
  });

  it('an upstream failure is never passed through: it is re-encoded in the caller format', async () => {
    const failing = () => Response.json({ error: { message: 'Busy', type: 'server_error', code: 'overloaded' } }, { status: 503 });
    const app = createGateway({ routes: { m: target('anthropic_messages', failing) }, authorize });
    const response = await post(app, 'anthropic_messages', 'm', false);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ type: 'error', error: { message: expect.stringContaining('Busy') } });
  });

  it('a streamed same-format caller still streams (the stream is re-encoded)', async () => {
    const provider = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: 'Hi.' }] });
    const app = createGateway({ routes: { m: target('anthropic_messages', provider) }, authorize });
    const frames = sseData(await (await post(app, 'anthropic_messages', 'm', true)).text());
    expect(frames.map((f) => f.type)).toContain('message_stop');
  });
});
