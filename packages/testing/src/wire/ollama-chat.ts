/**
 * Ollama `/api/chat` streaming: NDJSON, one object per line with `message.content`
 * and `message.thinking` deltas; tool calls arrive whole (arguments as an object, no
 * ids); the last line has `done: true`, `done_reason` and the token counts.
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 * Errors (HTTP and mid-stream `{ "error": ... }`): https://github.com/ollama/ollama/blob/main/docs/api.md#errors
 */
import type { FinishReason, Usage } from '@parlance/protocol';
import { ndjsonLine, statusForCode, type WireEncoder, type WireEncoderOptions, type WireError, type WireHttpError } from './types.ts';

const DONE_REASONS: Partial<Record<FinishReason, string>> = { length: 'length' };

export function ollamaChatEncoder(options: WireEncoderOptions = {}): WireEncoder {
  const tools = new Map<string, string>();
  let usage: Usage = {};
  const model = options.model ?? 'mock-model';
  const created = new Date((options.created ?? 1_700_000_000) * 1000).toISOString();
  const line = (message: Record<string, unknown>, extra: Record<string, unknown> = { done: false }) =>
    ndjsonLine({ model, created_at: created, message: { role: 'assistant', content: '', ...message }, ...extra });

  return {
    push(event) {
      switch (event.type) {
        case 'text-delta':
          return [line({ content: event.delta })];
        case 'reasoning-delta':
          return [line({ thinking: event.delta })];
        case 'tool-call-start':
          tools.set(event.id, event.name);
          return [];
        case 'tool-call-end': {
          const name = tools.get(event.id);
          if (name === undefined) return [];
          tools.delete(event.id);
          return [line({ tool_calls: [{ function: { name, arguments: event.input ?? {} } }] })];
        }
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish': {
          usage = { ...usage, ...event.usage };
          const extra: Record<string, unknown> = { done: true, done_reason: DONE_REASONS[event.finishReason] ?? 'stop' };
          if (usage.inputTokens !== undefined) extra.prompt_eval_count = usage.inputTokens;
          if (usage.outputTokens !== undefined) extra.eval_count = usage.outputTokens;
          return [line({}, extra)];
        }
        default:
          return [];
      }
    },
    end: () => [],
    error: (error) => [ndjsonLine({ error: error.message })],
  };
}

export function ollamaChatHttpError(error: WireError): WireHttpError {
  return {
    status: error.status ?? statusForCode(error.code),
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ error: error.message }),
  };
}
