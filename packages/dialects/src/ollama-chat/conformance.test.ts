import type { Usage } from '@parlance/protocol';
import { runConformance, type Expected, type Fixture } from '../../test/conformance.ts';
import { ollamaChat } from './index.ts';

function expectFromRecording(fixture: Fixture): Expected {
  let text = '';
  let reasoning = '';
  const toolCalls: { name: string; input: unknown }[] = [];
  const expected: Expected = { text };
  for (const { data } of fixture.payloads) {
    text += data.message?.content ?? '';
    reasoning += data.message?.thinking ?? '';
    for (const call of data.message?.tool_calls ?? []) toolCalls.push({ name: call.function.name, input: call.function.arguments });
    if (data.error) expected.errorCode = 'server_error';
    if (!data.done) continue;
    const usage: Usage = { inputTokens: data.prompt_eval_count, outputTokens: data.eval_count, totalTokens: data.prompt_eval_count + data.eval_count };
    expected.usage = usage;
    expected.finishReason = data.done_reason === 'length' ? 'length' : toolCalls.length ? 'tool-calls' : 'stop';
  }
  return { ...expected, text, reasoning, toolCalls };
}

runConformance(ollamaChat, expectFromRecording);
