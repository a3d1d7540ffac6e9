/**
 * Every recorded Chat Completions stream through the shared suite. The expectation
 * is read from each recording's own chunks with plain, independent rules (not the
 * decoder's code): text = all `content` strings, reasoning = per chunk the first of
 * `reasoning_content` / `reasoning` / `reasoning_details` text, tool calls grouped by
 * `index`, usage = the last usage object reported, finish = the last `finish_reason`.
 */
import type { FinishReason, Usage } from '@parlance/protocol';
import { type Expected, type Fixture, runConformance } from '../../test/conformance.ts';
import { openaiCompletions } from './index.ts';

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  content_filter: 'content-filter',
};

function usageOf(raw: any): Usage {
  const usage: Usage = {};
  if (raw.prompt_tokens !== undefined) usage.inputTokens = raw.prompt_tokens;
  if (raw.completion_tokens !== undefined) usage.outputTokens = raw.completion_tokens;
  if (raw.prompt_tokens_details?.cached_tokens !== undefined) usage.cacheReadTokens = raw.prompt_tokens_details.cached_tokens;
  if (raw.completion_tokens_details?.reasoning_tokens !== undefined)
    usage.reasoningTokens = raw.completion_tokens_details.reasoning_tokens;
  if (raw.total_tokens !== undefined) usage.totalTokens = raw.total_tokens;
  if (typeof raw.cost === 'number') usage.cost = raw.cost;
  return usage;
}

export function expectFromRecording(fixture: Fixture): Expected {
  let text = '';
  let reasoning = '';
  const calls = new Map<number, { name: string; args: string }>();
  let usage: Usage | undefined;
  let finishReason: FinishReason | undefined;
  for (const { data } of fixture.payloads) {
    const choice = data.choices?.[0];
    const delta = choice?.delta ?? {};
    if (typeof delta.content === 'string') text += delta.content;
    const details = (delta.reasoning_details ?? []).map((d: any) => d.text ?? d.summary ?? '').join('');
    reasoning += delta.reasoning_content || delta.reasoning || details || '';
    for (const call of delta.tool_calls ?? []) {
      const entry = calls.get(call.index) ?? { name: '', args: '' };
      if (!entry.name && call.function?.name) entry.name = call.function.name;
      entry.args += call.function?.arguments ?? '';
      calls.set(call.index, entry);
    }
    const reported = data.usage ?? choice?.usage;
    if (reported) usage = usageOf(reported);
    if (choice?.finish_reason) finishReason = FINISH[choice.finish_reason] ?? 'other';
  }
  const expected: Expected = {
    text,
    reasoning,
    toolCalls: [...calls.values()].map((c) => ({ name: c.name, input: JSON.parse(c.args || '{}') })),
  };
  if (usage) expected.usage = usage;
  if (finishReason) expected.finishReason = finishReason;
  return expected;
}

runConformance(openaiCompletions, expectFromRecording);
