import type { FinishReason, Usage } from '@parlance/protocol';
import { runConformance, type Expected, type Fixture } from '../../test/conformance.ts';
import { openaiResponses } from './index.ts';

/** Read straight from the recording's payloads, without the decoder. */
function expectFromRecording(fixture: Fixture): Expected {
  let text = '';
  let reasoning = '';
  const toolCalls: { name: string; input: unknown }[] = [];
  let terminal: any;
  let failed = false;
  for (const { data } of fixture.payloads) {
    if (typeof data !== 'object' || data === null) continue;
    switch (data.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        text += data.delta;
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        reasoning += data.delta;
        break;
      case 'response.output_item.done':
        if (data.item.type === 'function_call') toolCalls.push({ name: data.item.name, input: JSON.parse(data.item.arguments || '{}') });
        if (data.item.type === 'tool_search_call' && data.item.execution === 'client') toolCalls.push({ name: 'tool_search', input: data.item.arguments });
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        terminal = data;
        break;
      case 'error':
        failed = true;
        break;
    }
  }
  const expected: Expected = { text, reasoning, toolCalls };
  const u = terminal?.response?.usage;
  if (u) {
    const usage: Usage = {
      inputTokens: u.input_tokens,
      outputTokens: u.output_tokens,
      cacheReadTokens: u.input_tokens_details.cached_tokens,
      reasoningTokens: u.output_tokens_details.reasoning_tokens,
      totalTokens: u.total_tokens,
    };
    if (u.input_tokens_details.cache_write_tokens !== undefined) usage.cacheWriteTokens = u.input_tokens_details.cache_write_tokens;
    if (typeof u.cost === 'number') usage.cost = u.cost;
    expected.usage = usage;
  }
  let finish: FinishReason | undefined;
  if (terminal?.type === 'response.completed') finish = toolCalls.length ? 'tool-calls' : 'stop';
  else if (terminal?.type === 'response.incomplete') finish = terminal.response.incomplete_details?.reason === 'max_output_tokens' ? 'length' : 'other';
  else if (terminal || failed) finish = 'error';
  if (finish) expected.finishReason = finish;
  return expected;
}

runConformance(openaiResponses, expectFromRecording);
