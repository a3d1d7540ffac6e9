/**
 * Chat Completions streaming: `data: <chat.completion.chunk>` frames, no `event:`
 * line; the first chunk carries the role, text and reasoning arrive as `content` /
 * `reasoning_content` deltas, tool calls as indexed deltas (id and name on the
 * first, argument fragments after), the finish reason in its own chunk, usage in a
 * last chunk with empty `choices` (`stream_options.include_usage`), then `[DONE]`.
 * https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 * Reasoning as `reasoning_content`: https://api-docs.deepseek.com/guides/reasoning_model
 */
import type { FinishReason, Usage } from '@parlance/protocol';
import { openaiErrorBody, openaiErrorStatus } from './openai-errors.ts';
import { sseFrame, type WireEncoder, type WireEncoderOptions, type WireError, type WireHttpError } from './types.ts';

const FINISH: Partial<Record<FinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  refusal: 'stop',
};

function completionsUsage(usage: Usage): Record<string, unknown> {
  const prompt = usage.inputTokens ?? 0;
  const completion = usage.outputTokens ?? 0;
  const out: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: usage.totalTokens ?? prompt + completion,
  };
  if (usage.cacheReadTokens !== undefined) out.prompt_tokens_details = { cached_tokens: usage.cacheReadTokens };
  if (usage.reasoningTokens !== undefined) out.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  return out;
}

export function openaiCompletionsEncoder(options: WireEncoderOptions = {}): WireEncoder {
  const toolIndex = new Map<string, number>();
  let usage: Usage = {};
  const base = {
    id: options.responseId ?? 'chatcmpl-mock0001',
    object: 'chat.completion.chunk',
    created: options.created ?? 1_700_000_000,
    model: options.model ?? 'mock-model',
    system_fingerprint: null,
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    sseFrame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });

  return {
    push(event) {
      switch (event.type) {
        case 'message-start':
          return [chunk({ role: 'assistant', content: '' })];
        case 'text-delta':
          return [chunk({ content: event.delta })];
        case 'reasoning-delta':
          return [chunk({ reasoning_content: event.delta })];
        case 'tool-call-start': {
          const index = toolIndex.size;
          toolIndex.set(event.id, index);
          return [chunk({ tool_calls: [{ index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }] })];
        }
        case 'tool-call-delta': {
          const index = toolIndex.get(event.id);
          if (index === undefined) return [];
          return [chunk({ tool_calls: [{ index, function: { arguments: event.delta } }] })];
        }
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish': {
          usage = { ...usage, ...event.usage };
          const out = [chunk({}, FINISH[event.finishReason] ?? 'stop')];
          if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
            out.push(sseFrame({ ...base, choices: [], usage: completionsUsage(usage) }));
          }
          return out;
        }
        default:
          return [];
      }
    },
    end: () => ['data: [DONE]\n\n'],
    // OpenAI-compatible servers report a mid-stream failure as an error object in a data frame.
    error: (error) => [sseFrame(openaiErrorBody(error))],
  };
}

export function openaiCompletionsHttpError(error: WireError): WireHttpError {
  return {
    status: error.status ?? openaiErrorStatus(error.code),
    headers: { 'content-type': 'application/json', 'x-request-id': 'req_mock0001' },
    body: JSON.stringify(openaiErrorBody(error)),
  };
}
