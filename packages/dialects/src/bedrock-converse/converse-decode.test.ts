// The ConverseStream decoder on event sequences as the API reference describes them, and each way a stream goes wrong.
import type { WireEvent } from '../types.ts';
import type { Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { converseFinishReason, createConverseDecoder } from './converse-decode.ts';

const wire = (event: string, payload: unknown): WireEvent => ({ event, data: JSON.stringify(payload) });

function decode(wires: WireEvent[], end = true): Event[] {
  const decoder = createConverseDecoder();
  const out = wires.flatMap((w) => decoder.push(w));
  return end ? [...out, ...decoder.end()] : out;
}

const START = wire('messageStart', { role: 'assistant' });

describe('ConverseStream decoding', () => {
  it('text, redacted reasoning and usage (cache tokens counted into input, as the protocol counts them)', () => {
    const events = decode([
      START,
      wire('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: 'ZW5jcnlwdGVk' } } }),
      wire('contentBlockStop', { contentBlockIndex: 0 }),
      wire('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Hel' } }),
      wire('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'lo' } }),
      wire('contentBlockStop', { contentBlockIndex: 1 }),
      wire('someFutureEvent', { x: 1 }),
      wire('messageStop', { stopReason: 'max_tokens' }),
      wire('metadata', { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 45, cacheReadInputTokens: 30 }, metrics: { latencyMs: 100 } }),
    ]);
    expect(events.map((e) => e.type)).toEqual(['message-start', 'reasoning-start', 'reasoning-end', 'text-start', 'text-delta', 'text-delta', 'text-end', 'usage', 'finish']);
    expect(events[2]).toMatchObject({ redacted: true, providerState: { bedrock_converse: { redactedContent: 'ZW5jcnlwdGVk' } } });
    expect(events.at(-1)).toMatchObject({ finishReason: 'length', rawFinishReason: 'max_tokens' });
    expect(events.find((e) => e.type === 'usage')).toMatchObject({ usage: { inputTokens: 40, outputTokens: 5, cacheReadTokens: 30, totalTokens: 45 } });
  });

  it('tool input arrives in fragments and is parsed once at the block stop; a call with no fragments has {}', () => {
    const events = decode([
      START,
      wire('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_a', name: 'weather' } } }),
      wire('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":' } } }),
      wire('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '"Oslo"}' } } }),
      wire('contentBlockStop', { contentBlockIndex: 0 }),
      wire('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_b', name: 'now' } } }),
      wire('contentBlockStop', { contentBlockIndex: 1 }),
      wire('messageStop', { stopReason: 'tool_use' }),
      wire('metadata', { usage: { inputTokens: 1, outputTokens: 1 } }),
    ]);
    const ends = events.filter((e) => e.type === 'tool-call-end');
    expect(ends).toEqual([
      expect.objectContaining({ id: 'tooluse_a', input: { city: 'Oslo' } }),
      expect.objectContaining({ id: 'tooluse_b', input: {} }),
    ]);
    expect(events.at(-1)).toMatchObject({ finishReason: 'tool-calls' });
  });

  it('a body that ends after messageStop without metadata still finishes', () => {
    const events = decode([START, wire('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x' } }), wire('messageStop', { stopReason: 'end_turn' })]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('a body cut before messageStop is an invalid_response after what arrived', () => {
    const events = decode([START, wire('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x' } })]);
    expect(events.some((e) => e.type === 'text-delta')).toBe(true);
    expect(events.at(-2)).toMatchObject({ type: 'error', code: 'invalid_response' });
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it.each([
    ['throttlingException', 'rate_limited', true],
    ['serviceUnavailableException', 'overloaded', true],
    ['modelStreamErrorException', 'server_error', true],
    ['internalServerException', 'server_error', true],
    ['validationException', 'invalid_request', false],
  ] as const)('%s -> %s (retryable %s)', (name, code, retryable) => {
    const events = decode([START, wire(name, { message: 'nope' })], false);
    expect(events.at(-2)).toMatchObject({ type: 'error', code, retryable, message: `${name}: nope` });
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it.each([
    ['not JSON', { event: 'contentBlockDelta', data: '{"contentBlockIndex":' }],
    ['a JSON array', { event: 'metadata', data: '[]' }],
    ['a toolUse delta for a text block', wire('contentBlockDelta', { contentBlockIndex: 9, delta: { toolUse: { input: '{}' } } })],
  ])('%s is an invalid_response', (_name, bad) => {
    const events = decode([START, bad as WireEvent], false);
    expect(events.at(-2)).toMatchObject({ type: 'error', code: 'invalid_response' });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool-calls'],
    ['guardrail_intervened', 'content-filter'],
    ['content_filtered', 'content-filter'],
    ['malformed_model_output', 'other'],
  ])('stopReason %s -> %s', (raw, reason) => {
    expect(converseFinishReason(raw)).toBe(reason);
  });
});
