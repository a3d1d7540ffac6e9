/**
 * Each provider quirk the decoder handles, shown on the recording that has it
 * (test/fixtures/openai_completions, recorded from the real APIs by aaronrussell/omni).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectResponse, type Event, type Part } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { decodeDialectText } from '../decode-stream.ts';
import type { DecoderOptions } from '../types.ts';
import { openaiCompletions } from './index.ts';

const DIR = join(import.meta.dirname, '../../test/fixtures/openai_completions');
const recording = (name: string) => readFileSync(join(DIR, name), 'utf8');

/** The JSON chunks of a recording, in order (comments and `[DONE]` left out). */
function chunks(name: string): any[] {
  return recording(name)
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.trim() !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)));
}

const decode = (text: string, options?: DecoderOptions) => decodeDialectText(openaiCompletions, text, options);
const ofType = <T extends Event['type']>(events: Event[], type: T) =>
  events.filter((e): e is Extract<Event, { type: T }> => e.type === type);
const reasoningParts = (parts: Part[]) => parts.filter((p): p is Extract<Part, { type: 'reasoning' }> => p.type === 'reasoning');

describe('tool calls whose id and name repeat on every chunk', () => {
  it('opens one call and keeps the name once (Fireworks Kimi via opencode)', async () => {
    const name = 'omni__opencode_kimi-k2-5_tool_use.sse';
    const toolChunks = chunks(name).filter((c) => c.choices?.[0]?.delta?.tool_calls);
    // The recording really repeats the id on every tool chunk.
    expect(toolChunks.length).toBeGreaterThan(2);
    expect(new Set(toolChunks.map((c) => c.choices[0].delta.tool_calls[0].id))).toEqual(new Set(['functions.get_weather:0']));

    const events = decode(recording(name));
    const starts = ofType(events, 'tool-call-start');
    expect(starts).toEqual([{ type: 'tool-call-start', id: 'functions.get_weather:0', name: 'get_weather' }]);
    const response = await collectResponse(events);
    const calls = response.message.parts.filter((p) => p.type === 'tool-call');
    expect(calls).toEqual([{ type: 'tool-call', id: 'functions.get_weather:0', name: 'get_weather', input: { location: 'London' } }]);
  });

  it('does not open a second call when a later chunk sends id "" (Alibaba)', () => {
    const name = 'omni__alibaba_tool_use.sse';
    const ids = chunks(name).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []).map((t: any) => t.id);
    expect(ids[0]).toBe('call_8b9c16a307534bc7b7d9b654');
    expect(ids.slice(1).every((id: string) => id === '')).toBe(true);

    const events = decode(recording(name));
    expect(ofType(events, 'tool-call-start').map((e) => e.id)).toEqual(['call_8b9c16a307534bc7b7d9b654']);
    expect(ofType(events, 'tool-call-end')[0]?.input).toEqual({ location: 'London' });
  });

  it('takes whole arguments sent in one chunk (Groq, Z.ai)', () => {
    for (const name of ['omni__groq_tool_use.sse', 'omni__zai_tool_use.sse']) {
      const events = decode(recording(name));
      expect(ofType(events, 'tool-call-delta')).toHaveLength(1);
      expect(ofType(events, 'tool-call-end').map((e) => e.input)).toEqual([{ location: 'London' }]);
    }
  });
});

describe('reasoning field variants', () => {
  it.each([
    ['omni__zai_thinking.sse', 'reasoning_content'],
    ['omni__alibaba_thinking.sse', 'reasoning_content'],
    ['omni__moonshot_thinking.sse', 'reasoning_content'],
    ['omni__groq_thinking.sse', 'reasoning'],
  ])('%s: reasoning from `%s`, recorded in providerState', async (name, field) => {
    const expected = chunks(name)
      .map((c) => c.choices?.[0]?.delta?.[field] ?? '')
      .join('');
    expect(expected.length).toBeGreaterThan(0);
    const response = await collectResponse(decode(recording(name)));
    const parts = reasoningParts(response.message.parts);
    expect(parts.map((p) => p.text).join('')).toBe(expected);
    expect(parts[0]?.providerState).toEqual({ openai_completions: { field } });
  });

  it('does not double the text OpenRouter sends in both `reasoning` and `reasoning_details`', async () => {
    const name = 'omni__openrouter_thinking.sse';
    const both = chunks(name).filter((c) => c.choices?.[0]?.delta?.reasoning && c.choices[0].delta.reasoning_details?.length);
    expect(both.length).toBeGreaterThan(10);
    const reasoning = chunks(name)
      .map((c) => c.choices?.[0]?.delta?.reasoning ?? '')
      .join('');

    const response = await collectResponse(decode(recording(name)));
    const parts = reasoningParts(response.message.parts);
    expect(parts.map((p) => p.text).join('')).toBe(reasoning);

    // The details are merged (summary fragments joined) and kept for the round trip, encrypted blob included.
    const state = parts[0]?.providerState?.openai_completions as { field: string; reasoningDetails: any[] };
    expect(state.field).toBe('reasoning');
    expect(state.reasoningDetails.map((d) => d.type)).toEqual(['reasoning.summary', 'reasoning.encrypted']);
    expect(state.reasoningDetails[0].summary).toBe(reasoning);
    const encrypted = chunks(name)
      .flatMap((c) => c.choices?.[0]?.delta?.reasoning_details ?? [])
      .find((d: any) => d.type === 'reasoning.encrypted');
    expect(state.reasoningDetails[1]).toEqual(encrypted);
  });

  it('reads the same text from `reasoning_details` alone when told to (reasoningFields option)', async () => {
    const name = 'omni__openrouter_tool_use.sse';
    const reasoning = chunks(name)
      .map((c) => c.choices?.[0]?.delta?.reasoning ?? '')
      .join('');
    const response = await collectResponse(decode(recording(name), { reasoningFields: ['reasoning_details'] }));
    const parts = reasoningParts(response.message.parts);
    expect(parts.map((p) => p.text).join('')).toBe(reasoning);
    expect((parts[0]?.providerState?.openai_completions as { field?: string } | undefined)?.field).toBe('reasoning_details');
  });

  it('ignores fields left out of reasoningFields', async () => {
    const response = await collectResponse(decode(recording('omni__groq_thinking.sse'), { reasoningFields: ['reasoning_content'] }));
    expect(reasoningParts(response.message.parts)).toEqual([]);
    expect(response.finishReason).toBe('stop');
  });
});

describe('usage after the finish', () => {
  it.each(['omni__openrouter_text.sse', 'omni__alibaba_text.sse', 'omni__moonshot_text.sse'])(
    '%s: holds the finish until the usage chunk has arrived',
    (name) => {
      const all = chunks(name);
      const finishAt = all.findIndex((c) => c.choices?.[0]?.finish_reason);
      const usageAt = all.map((c) => Boolean(c.usage)).lastIndexOf(true);
      expect(usageAt).toBeGreaterThan(finishAt);

      const events = decode(recording(name));
      const finish = events.at(-1);
      expect(finish?.type).toBe('finish');
      const usage = all[usageAt].usage;
      expect(finish).toMatchObject({ finishReason: 'stop', rawFinishReason: 'stop' });
      expect(finish?.type === 'finish' && finish.usage).toMatchObject({
        inputTokens: usage.prompt_tokens,
        outputTokens: usage.completion_tokens,
        totalTokens: usage.total_tokens,
      });
    },
  );

  it('treats a body that ends after finish_reason (no usage chunk, no [DONE]) as a normal end', async () => {
    const text = recording('omni__openrouter_text.sse');
    const cut = text.slice(0, text.indexOf('"finish_reason":"stop"'));
    const end = text.indexOf('\n\n', cut.length) + 2;
    const events = decode(text.slice(0, end));
    expect(ofType(events, 'error')).toEqual([]);
    const response = await collectResponse(events);
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({});
  });

  it('reads usage sent inside the choice (Moonshot) and twice (Groq) without changing the totals', () => {
    const moonshot = chunks('omni__moonshot_tool_use.sse');
    expect(moonshot.some((c) => c.choices?.[0]?.usage)).toBe(true);
    const groq = chunks('omni__groq_text.sse');
    expect(groq.filter((c) => c.usage)).toHaveLength(2);
    for (const name of ['omni__moonshot_tool_use.sse', 'omni__groq_text.sse']) {
      const events = decode(recording(name));
      expect(ofType(events, 'usage')).toHaveLength(2);
      const last = chunks(name).filter((c) => c.usage).at(-1).usage;
      expect(ofType(events, 'finish')[0]?.usage).toMatchObject({ inputTokens: last.prompt_tokens, totalTokens: last.total_tokens });
    }
  });

  it('stops at [DONE] and ignores the chunk opencode sends after it', () => {
    const text = recording('omni__opencode_kimi-k2-5_tool_use.sse');
    expect(text.slice(text.indexOf('data: [DONE]'))).toContain('"cost"');
    const events = decode(text);
    expect(ofType(events, 'finish')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('finish');
    expect(ofType(events, 'error')).toEqual([]);
  });
});

describe('cached and reasoning token counts', () => {
  it('maps prompt_tokens_details.cached_tokens and completion_tokens_details.reasoning_tokens (Z.ai, OpenRouter)', () => {
    const zai = ofType(decode(recording('omni__zai_tool_use.sse')), 'finish')[0]!;
    expect(zai.usage).toEqual({ inputTokens: 174, outputTokens: 22, cacheReadTokens: 44, reasoningTokens: 0, totalTokens: 196 });
    const openrouter = ofType(decode(recording('omni__openrouter_thinking.sse')), 'finish')[0]!;
    expect(openrouter.usage).toEqual({
      inputTokens: 14,
      outputTokens: 153,
      cacheReadTokens: 0,
      reasoningTokens: 64,
      totalTokens: 167,
      cost: 0.000306405,
    });
  });

  it('leaves unreported fields undefined (Moonshot reports no cache or reasoning counts)', () => {
    const finish = ofType(decode(recording('omni__moonshot_text.sse')), 'finish')[0]!;
    expect(Object.keys(finish.usage).sort()).toEqual(['inputTokens', 'outputTokens', 'totalTokens']);
  });
});

describe('response identity', () => {
  it('reports the response id and model from the first chunk', () => {
    const first = chunks('omni__groq_text.sse')[0];
    expect(decode(recording('omni__groq_text.sse'))[0]).toEqual({ type: 'message-start', responseId: first.id, model: first.model });
  });
});
