/**
 * The shared conformance suite over every Anthropic recording. The expectation is read
 * straight from each recording's payloads, independently of the decoder: one response per
 * stream (a recording holding a second response after `message_stop` is judged on the first),
 * usage as the documented sums (input = input + cache reads + cache writes; compaction
 * iterations summed).
 */
import type { FinishReason, Usage } from '@parlance/protocol';
import { runConformance, type Expected, type Fixture } from '../../test/conformance.ts';
import { anthropicMessages } from './index.ts';

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  pause_turn: 'pause',
  refusal: 'refusal',
};

const ERRORS: Record<string, string> = {
  overloaded_error: 'overloaded',
  rate_limit_error: 'rate_limited',
  api_error: 'server_error',
  invalid_request_error: 'invalid_request',
};

type Counts = { input?: number; output?: number; read?: number; write?: number };

function countsOf(usage: any): Counts {
  if (!usage) return {};
  if (Array.isArray(usage.iterations) && usage.iterations.length > 0) {
    const sum = (key: string) => usage.iterations.reduce((n: number, it: any) => n + (it[key] ?? 0), 0);
    return {
      input: sum('input_tokens'),
      output: sum('output_tokens'),
      read: sum('cache_read_input_tokens'),
      write: sum('cache_creation_input_tokens'),
    };
  }
  const out: Counts = {};
  if (typeof usage.input_tokens === 'number') out.input = usage.input_tokens;
  if (typeof usage.output_tokens === 'number') out.output = usage.output_tokens;
  if (typeof usage.cache_read_input_tokens === 'number') out.read = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === 'number') out.write = usage.cache_creation_input_tokens;
  return out;
}

function expectFromRecording(fixture: Fixture): Expected {
  let text = '';
  let reasoning = '';
  const tools = new Map<number, { name: string; json: string; start: unknown }>();
  let counts: Counts = {};
  let stop: string | undefined;
  let errorCode: string | undefined;
  for (const { data } of fixture.payloads) {
    if (data.type === 'message_stop') break;
    if (data.type === 'message_start') counts = { ...counts, ...countsOf(data.message.usage) };
    if (data.type === 'message_delta') {
      counts = { ...counts, ...countsOf(data.usage) };
      stop = data.delta?.stop_reason ?? stop;
    }
    if (data.type === 'content_block_start') {
      const block = data.content_block;
      if (block.type === 'text') text += block.text ?? '';
      if (block.type === 'thinking') reasoning += block.thinking ?? '';
      if (block.type === 'tool_use') tools.set(data.index, { name: block.name, json: '', start: block.input });
    }
    if (data.type === 'content_block_delta') {
      const delta = data.delta;
      if (delta.type === 'text_delta') text += delta.text;
      if (delta.type === 'thinking_delta') reasoning += delta.thinking;
      // compaction_delta is a summary of earlier turns: a compaction part, not reasoning (decode.test.ts).
      if (delta.type === 'input_json_delta' && tools.has(data.index)) tools.get(data.index)!.json += delta.partial_json;
    }
    if (data.type === 'error') {
      errorCode = ERRORS[data.error.type] ?? 'unknown';
      break;
    }
  }
  const usage: Usage = {};
  if (counts.input !== undefined) usage.inputTokens = counts.input + (counts.read ?? 0) + (counts.write ?? 0);
  if (counts.output !== undefined) usage.outputTokens = counts.output;
  if (counts.read !== undefined) usage.cacheReadTokens = counts.read;
  if (counts.write !== undefined) usage.cacheWriteTokens = counts.write;
  const toolCalls = [...tools.values()].map((t) => ({ name: t.name, input: t.json === '' ? (t.start ?? {}) : JSON.parse(t.json) }));
  const expected: Expected = { text, reasoning, toolCalls, usage };
  if (errorCode) {
    expected.errorCode = errorCode;
    expected.finishReason = 'error';
  } else {
    expected.finishReason = stop ? (FINISH[stop] ?? 'other') : 'other';
  }
  return expected;
}

runConformance(anthropicMessages, expectFromRecording);
