/**
 * Anthropic Messages streaming, as the API sends it: `event: <type>` + `data: <json>`
 * per frame; message_start, content_block_start/delta/stop per block (with a `ping`
 * after the first block opens, as recorded), message_delta with the stop reason and
 * output tokens, message_stop.
 * Streaming: https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * Errors: https://docs.anthropic.com/en/api/errors
 */
import type { ErrorCode, FinishReason, Usage } from '@parlance/protocol';
import { sseFrame, statusForCode, type WireEncoder, type WireEncoderOptions, type WireError, type WireHttpError } from './types.ts';

const STOP_REASONS: Partial<Record<FinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  refusal: 'refusal',
  'content-filter': 'refusal',
  pause: 'pause_turn',
};

const ERROR_TYPES: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'invalid_request_error',
  context_length_exceeded: 'invalid_request_error',
  content_filter: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  rate_limited: 'rate_limit_error',
  overloaded: 'overloaded_error',
  timeout: 'timeout_error',
};

function errorBody(error: WireError): unknown {
  return { type: 'error', error: { type: ERROR_TYPES[error.code] ?? 'api_error', message: error.message } };
}

/** The Messages API counts cache reads and writes apart from `input_tokens`. */
function usageFields(usage: Usage): Record<string, number> {
  const out: Record<string, number> = {};
  if (usage.inputTokens !== undefined) out.input_tokens = usage.inputTokens;
  if (usage.cacheWriteTokens !== undefined) out.cache_creation_input_tokens = usage.cacheWriteTokens;
  if (usage.cacheReadTokens !== undefined) out.cache_read_input_tokens = usage.cacheReadTokens;
  if (usage.outputTokens !== undefined) out.output_tokens = usage.outputTokens;
  return out;
}

export function anthropicMessagesEncoder(options: WireEncoderOptions = {}): WireEncoder {
  const blocks = new Map<string, number>();
  let next = 0;
  let pinged = false;
  let usage: Usage = options.usage ?? {};
  const frame = (data: { type: string; [key: string]: unknown }) => sseFrame(data, data.type);

  const openBlock = (id: string, contentBlock: unknown): string[] => {
    const index = next++;
    blocks.set(id, index);
    const out = [frame({ type: 'content_block_start', index, content_block: contentBlock })];
    if (!pinged) {
      pinged = true;
      out.push(frame({ type: 'ping' }));
    }
    return out;
  };
  const delta = (id: string, body: unknown): string[] => {
    const index = blocks.get(id);
    return index === undefined ? [] : [frame({ type: 'content_block_delta', index, delta: body })];
  };
  const stop = (id: string): string[] => {
    const index = blocks.get(id);
    return index === undefined ? [] : [frame({ type: 'content_block_stop', index })];
  };

  return {
    push(event) {
      switch (event.type) {
        case 'message-start':
          return [
            frame({
              type: 'message_start',
              message: {
                id: options.responseId ?? event.responseId ?? 'msg_mock0001',
                type: 'message',
                role: 'assistant',
                model: options.model ?? event.model ?? 'mock-model',
                content: [],
                stop_reason: null,
                stop_sequence: null,
                // Input and cache tokens are known before the first token; output tokens come in message_delta.
                // A usage the script leaves out stays out, rather than becoming a made-up 0.
                usage: usageFields({ ...usage, outputTokens: undefined }),
              },
            }),
          ];
        case 'text-start':
          return openBlock(event.id, { type: 'text', text: '' });
        case 'text-delta':
          return delta(event.id, { type: 'text_delta', text: event.delta });
        case 'reasoning-start':
          return openBlock(event.id, { type: 'thinking', thinking: '', signature: '' });
        case 'reasoning-delta':
          return delta(event.id, { type: 'thinking_delta', thinking: event.delta });
        case 'reasoning-end':
          return [
            ...(event.signature ? delta(event.id, { type: 'signature_delta', signature: event.signature }) : []),
            ...stop(event.id),
          ];
        case 'tool-call-start':
          return openBlock(event.id, { type: 'tool_use', id: event.id, name: event.name, input: {} });
        case 'tool-call-delta':
          return delta(event.id, { type: 'input_json_delta', partial_json: event.delta });
        case 'text-end':
        case 'tool-call-end':
          return stop(event.id);
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish': {
          usage = { ...usage, ...event.usage };
          return [
            frame({
              type: 'message_delta',
              delta: { stop_reason: STOP_REASONS[event.finishReason] ?? 'end_turn', stop_sequence: null },
              usage: usageFields(usage),
            }),
            frame({ type: 'message_stop' }),
          ];
        }
        default:
          return [];
      }
    },
    end: () => [],
    error: (error) => [sseFrame(errorBody(error), 'error')],
  };
}

export function anthropicMessagesHttpError(error: WireError): WireHttpError {
  // Anthropic answers 529 when overloaded (https://docs.anthropic.com/en/api/errors).
  const status = error.status ?? (error.code === 'overloaded' ? 529 : statusForCode(error.code));
  return {
    status,
    headers: { 'content-type': 'application/json', 'request-id': 'req_mock0001' },
    body: JSON.stringify({ ...(errorBody(error) as object), request_id: 'req_mock0001' }),
  };
}
