/**
 * Whole (non-streamed) response bodies read by each dialect's stream decoder (`replayBody`):
 * bodies in each provider's documented shape, and for every recording, the whole body our
 * encoder writes for the recorded answer reads back as the same answer.
 */
import { collectResponse, type Event, type Response } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../test/conformance.ts';
import { decodeText, getDialect } from '../registry.ts';
import { DIALECT_IDS, type DialectId } from '../types.ts';

function replay(dialect: DialectId, body: unknown): Event[] {
  const spec = getDialect(dialect);
  const decoder = spec.createDecoder();
  const frames = spec.replayBody?.(body);
  if (!frames) throw new Error(`${dialect} has no replayBody`);
  return [...frames.flatMap((frame) => decoder.push(frame)), ...decoder.end()];
}

/** What a caller sees of an answer: text, reasoning text, tool calls, the finish and the counts. */
function view(response: Response) {
  const parts = response.message.parts;
  return {
    text: parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
    reasoning: parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : [])).join(''),
    calls: parts.flatMap((p) => (p.type === 'tool-call' && !p.providerExecuted ? [{ id: p.id, name: p.name, input: p.input }] : [])),
    finishReason: response.finishReason,
    inputTokens: response.usage.inputTokens,
    outputTokens: response.usage.outputTokens,
  };
}

// Each body follows the provider's published response object (links beside each): a text answer
// with two parallel tool calls, the response id, the model and the usage.
const BODIES: Record<DialectId, { body: unknown; id?: string; model?: string; cacheRead?: number; input?: number }> = {
  // https://platform.openai.com/docs/api-reference/chat/object
  openai_completions: {
    body: {
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-x-2025',
      system_fingerprint: 'fp_1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking both.',
            refusal: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42, prompt_tokens_details: { cached_tokens: 8 } },
    },
    id: 'chatcmpl-abc',
    model: 'gpt-x-2025',
    cacheRead: 8,
  },
  // https://platform.openai.com/docs/api-reference/responses/object
  openai_responses: {
    body: {
      id: 'resp_abc',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      model: 'gpt-x-2025',
      output: [
        { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking both.', annotations: [] }] },
        { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}', status: 'completed' },
        { id: 'fc_2', type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}', status: 'completed' },
      ],
      usage: { input_tokens: 30, input_tokens_details: { cached_tokens: 8 }, output_tokens: 12, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 42 },
    },
    id: 'resp_abc',
    model: 'gpt-x-2025',
    cacheRead: 8,
  },
  // https://docs.anthropic.com/en/api/messages (the Message object)
  anthropic_messages: {
    body: {
      id: 'msg_abc',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'text', text: 'Checking both.' },
        { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_2', name: 'weather', input: { city: 'Rome' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 12, cache_read_input_tokens: 8, cache_creation_input_tokens: 0 },
    },
    id: 'msg_abc',
    model: 'claude-x',
    cacheRead: 8,
    // Anthropic's input_tokens leave out the cached ones; the protocol's count holds them.
    input: 38,
  },
  // https://ai.google.dev/api/generate-content#generatecontentresponse
  google_gemini: {
    body: {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ text: 'Checking both.' }, { functionCall: { name: 'weather', args: { city: 'Paris' } } }, { functionCall: { name: 'weather', args: { city: 'Rome' } } }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 12, totalTokenCount: 42, cachedContentTokenCount: 8 },
      modelVersion: 'gemini-x',
      responseId: 'gem-abc',
    },
    id: 'gem-abc',
    model: 'gemini-x',
    cacheRead: 8,
  },
  // https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-no-streaming
  ollama_chat: {
    body: {
      model: 'llama-x',
      created_at: '2025-01-01T00:00:00Z',
      message: {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [{ function: { name: 'weather', arguments: { city: 'Paris' } } }, { function: { name: 'weather', arguments: { city: 'Rome' } } }],
      },
      done: true,
      done_reason: 'stop',
      total_duration: 1,
      prompt_eval_count: 30,
      eval_count: 12,
    },
    model: 'llama-x',
  },
};

describe('a whole response body is read by the stream decoder', () => {
  it.each(DIALECT_IDS)('%s: a body in the documented shape gives the answer, its id, model and usage', async (dialect) => {
    const { body, id, model, cacheRead, input = 30 } = BODIES[dialect];
    const events = replay(dialect, body);
    const response = await collectResponse(events);
    const answer = view(response);
    expect(answer.text).toBe('Checking both.');
    expect(answer.calls.map((c) => [c.name, c.input])).toEqual([
      ['weather', { city: 'Paris' }],
      ['weather', { city: 'Rome' }],
    ]);
    expect(new Set(answer.calls.map((c) => c.id)).size).toBe(2);
    expect(answer.finishReason).toBe('tool-calls');
    expect(response.usage).toMatchObject({ inputTokens: input, outputTokens: 12 });
    if (cacheRead !== undefined) expect(response.usage.cacheReadTokens).toBe(cacheRead);
    if (id !== undefined) expect(response.id).toBe(id);
    if (model !== undefined) expect(response.model).toBe(model);
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
  });

  it.each(DIALECT_IDS)('%s: an error body is an error, never an empty answer', async (dialect) => {
    const error = getDialect(dialect).encodeError({ code: 'overloaded', message: 'Busy' });
    const events = replay(dialect, JSON.parse(error.body));
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: expect.stringContaining('Busy') });
  });

  describe.each(DIALECT_IDS)('%s: every recorded answer, as the whole body our encoder writes, reads back the same', (dialect) => {
    it.each(loadFixtures(dialect).map((f) => [f.name, f] as const))('%s', async (_name, fixture) => {
      const streamed = await collectResponse(decodeText(dialect, fixture.bytes));
      if (streamed.finishReason === 'error') return; // a recorded failure has no whole body
      const body = getDialect(dialect).encodeResponse(streamed, { model: 'm', responseId: 'r-1', usage: streamed.usage });
      const whole = await collectResponse(replay(dialect, JSON.parse(JSON.stringify(body))));
      expect(view(whole)).toEqual(view(streamed));
    });
  });
});
