/**
 * Per-provider quirks, each shown by a real recording or the provider's documented
 * request shape: reasoning field names, usage placement, provider-reported cost, and
 * the body rewrites each vendor needs.
 */
import { collectResponse, type ModelRequest } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { alibaba, groq, moonshot, openai, openrouter, xai, zai, type Provider } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { fixture, replay, serverPerTest } from './server.ts';

const KEY = 'test-key-0123456789abcdef';
const messages = ask('Count the r in strawberry');

const serve = serverPerTest();

async function run(provider: Provider, modelId: string, name: string, request: Omit<ModelRequest, 'model' | 'messages'> = {}) {
  const recording = fixture('openai_completions', name);
  const server = await serve((_req, res) => replay(res, recording));
  const events = await drain(provider.model(modelId, { baseURL: server.url, apiKey: KEY }).stream({ messages, ...request }));
  return { response: await collectResponse(events), body: server.requests[0]!.body, payloads: recording.payloads };
}

function reasoningOf(payloads: { data: any }[], field: string): string {
  let text = '';
  for (const p of payloads) {
    const value = p.data?.choices?.[0]?.delta?.[field];
    if (typeof value === 'string') text += value;
  }
  return text;
}

function partText(response: Awaited<ReturnType<typeof collectResponse>>, type: 'text' | 'reasoning'): string {
  return response.message.parts.map((p) => (p.type === type ? p.text : '')).join('');
}

describe('Groq', () => {
  it('reads gpt-oss reasoning from the `reasoning` field and sends no reasoning_format for gpt-oss', async () => {
    const { response, body, payloads } = await run(groq, 'openai/gpt-oss-120b', 'omni__groq_thinking.sse', { thinking: { effort: 'low' } });
    expect(partText(response, 'reasoning')).toBe(reasoningOf(payloads, 'reasoning'));
    expect(partText(response, 'reasoning').length).toBeGreaterThan(0);
    expect(body.reasoning_format).toBeUndefined();
    expect(body.reasoning_effort).toBe('low');
    // x_groq usage with reasoning tokens, priced from the catalog.
    expect(response.usage).toMatchObject({ inputTokens: 79, outputTokens: 48, reasoningTokens: 23 });
    expect(response.usage.cost).toBeGreaterThan(0);
  });

  it("asks Qwen 3 for parsed reasoning and sends its only effort value, 'default'", async () => {
    const { body } = await run(groq, 'qwen/qwen3-32b', 'omni__groq_text.sse', { thinking: { effort: 'medium' } });
    expect(body.reasoning_format).toBe('parsed');
    expect(body.reasoning_effort).toBe('default');
  });
});

describe('OpenRouter', () => {
  it('keeps the cost OpenRouter reports and reads `reasoning` deltas past its keep-alive comments', async () => {
    const { response, payloads } = await run(openrouter, 'openai/gpt-5-mini', 'omni__openrouter_thinking.sse');
    const reported = payloads.map((p) => p.data?.usage?.cost).find((c) => typeof c === 'number');
    expect(reported).toBe(0.000306405);
    expect(response.usage.cost).toBe(reported);
    expect(partText(response, 'reasoning')).toBe(reasoningOf(payloads, 'reasoning'));
  });

  it('sends reasoning as its normalized `reasoning` object', async () => {
    const effort = await run(openrouter, 'openai/gpt-5-mini', 'omni__openrouter_text.sse', { thinking: { effort: 'high' } });
    expect(effort.body.reasoning).toEqual({ effort: 'high' });
    expect(effort.body.reasoning_effort).toBeUndefined();
    const budget = await run(openrouter, 'anthropic/claude-sonnet-4.5', 'omni__openrouter_text.sse', { thinking: { budgetTokens: 3000 } });
    expect(budget.body.reasoning).toEqual({ max_tokens: 3000 });
  });
});

describe('Z.ai', () => {
  it('reads reasoning_content, uses max_tokens and the thinking switch, streams tool arguments', async () => {
    const tools = [{ name: 'count', inputSchema: { type: 'object', properties: {} } }];
    const { response, body, payloads } = await run(zai, 'glm-4.7-flash', 'omni__zai_thinking.sse', {
      thinking: false,
      maxOutputTokens: 500,
      tools,
    });
    expect(partText(response, 'reasoning')).toBe(reasoningOf(payloads, 'reasoning_content'));
    expect(response.usage).toMatchObject({ inputTokens: 13, outputTokens: 207, cacheReadTokens: 2, reasoningTokens: 179 });
    expect(body.thinking).toEqual({ type: 'disabled' });
    expect(body.reasoning_effort).toBeUndefined();
    expect(body.max_tokens).toBe(500);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.tool_stream).toBe(true);
  });
});

describe('Moonshot', () => {
  it('reads usage from inside the choice and sends the thinking switch', async () => {
    const { response, body, payloads } = await run(moonshot, 'kimi-k2.6', 'omni__moonshot_thinking.sse', { thinking: { effort: 'high' } });
    expect(response.usage).toMatchObject({ inputTokens: 15, outputTokens: 238 });
    expect(partText(response, 'reasoning')).toBe(reasoningOf(payloads, 'reasoning_content'));
    expect(body.thinking).toEqual({ type: 'enabled' });
    expect(body.reasoning_effort).toBeUndefined();
  });
});

describe('Alibaba', () => {
  it('reads reasoning_content (null content chunks) and switches thinking with enable_thinking', async () => {
    const { response, body, payloads } = await run(alibaba, 'qwen3.6-plus', 'omni__alibaba_thinking.sse', { thinking: { budgetTokens: 2000 } });
    expect(partText(response, 'reasoning')).toBe(reasoningOf(payloads, 'reasoning_content'));
    expect(partText(response, 'text')).toContain('strawberry');
    expect(body.enable_thinking).toBe(true);
    expect(body.thinking_budget).toBe(2000);
    expect(body.reasoning_effort).toBeUndefined();
  });
});

describe('request rewrites without a recording of their own', () => {
  it('xAI: drops reasoning_effort for Grok 4, maps it to low/high for grok-3-mini', async () => {
    const grok4 = await run(xai, 'grok-4', 'omni__groq_text.sse', { thinking: { effort: 'medium' } });
    expect(grok4.body.reasoning_effort).toBeUndefined();
    const mini = await run(xai, 'grok-3-mini', 'omni__groq_text.sse', { thinking: { effort: 'xhigh' } });
    expect(mini.body.reasoning_effort).toBe('high');
  });

  it('OpenAI: drops temperature for reasoning models, keeps it for others', async () => {
    const recording = fixture('openai_responses', 'pydantic-ai__test_openai_responses_stream.i0.sse');
    const server = await serve((_req, res) => replay(res, recording));
    for await (const _ of openai.model('gpt-5', { baseURL: server.url, apiKey: KEY }).stream({ messages, temperature: 0.2 }));
    for await (const _ of openai.model('gpt-4o', { baseURL: server.url, apiKey: KEY }).stream({ messages, temperature: 0.2 }));
    expect(server.requests[0]!.body.temperature).toBeUndefined();
    expect(server.requests[1]!.body.temperature).toBe(0.2);
  });

  it('OpenAI: Chat Completions on request', async () => {
    const recording = fixture('openai_completions', 'omni__openrouter_text.sse');
    const server = await serve((_req, res) => replay(res, recording));
    const model = openai.model('gpt-4o-mini', { baseURL: server.url, apiKey: KEY, dialect: 'openai_completions' });
    expect(model.dialect).toBe('openai_completions');
    const events = await drain(model.stream({ messages }));
    expect(server.requests[0]!.url).toBe('/chat/completions');
    expect((await collectResponse(events)).finishReason).toBe('stop');
  });
});
