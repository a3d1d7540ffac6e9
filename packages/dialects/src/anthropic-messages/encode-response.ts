/**
 * Protocol events -> Messages API responses, as Anthropic serves them.
 * Streaming: `event: <type>` + `data: <json>` per frame; message_start (the message with
 * its input usage), content_block_start/delta/stop per block (a `ping` after the first block
 * opens, as recorded), message_delta with the stop reason and the final usage,
 * message_stop. Every object carries the fields the published schema marks required
 * (`usage.output_tokens` already in message_start, `stop_details`, `caller`); a text block has no
 * `citations` field unless it cites (real bodies omit it, and `@ai-sdk/anthropic` rejects `null` there).
 * Streaming: https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * Message object (the non-streaming body): https://docs.anthropic.com/en/api/messages#response-content
 * Errors: https://docs.anthropic.com/en/api/errors
 */
import type { ErrorCode, FinishReason, Part, Response, Usage } from '@parlance/protocol';
import { sseFrame, statusForCode, type EncodedHttpError, type ResponseEncoder, type ResponseEncoderOptions, type ResponseEncoding, type ResponseError } from '../shared/response-encoding.ts';
import { anthropicState } from './mappings.ts';

type Json = Record<string, unknown>;

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

const REQUEST_ID = 'req_parlance0001';

function errorBody(error: ResponseError): Json {
  return { type: 'error', error: { type: ERROR_TYPES[error.code] ?? 'api_error', message: error.message }, request_id: REQUEST_ID };
}

/**
 * The protocol's `inputTokens` is the whole prompt; Anthropic's `input_tokens` counts only what
 * was neither read from nor written to the cache (the decoder adds the three back up).
 * https://docs.anthropic.com/en/api/messages#response-usage
 */
function usageCounts(usage: Usage): Json {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite),
    cache_creation_input_tokens: usage.cacheWriteTokens ?? null,
    cache_read_input_tokens: usage.cacheReadTokens ?? null,
    output_tokens: usage.outputTokens ?? 0,
    output_tokens_details: usage.reasoningTokens === undefined ? null : { thinking_tokens: usage.reasoningTokens },
    server_tool_use: null,
  };
}

/** The `Usage` object of a message (message_start and the non-streaming body). */
function messageUsage(usage: Usage): Json {
  return { ...usageCounts(usage), cache_creation: null, inference_geo: null, service_tier: 'standard' };
}

function messageShell(options: ResponseEncoderOptions, content: Json[], usage: Usage, stopReason: string | null): Json {
  return {
    id: options.responseId ?? 'msg_parlance0001',
    type: 'message',
    role: 'assistant',
    model: options.model ?? 'mock-model',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: messageUsage(usage),
  };
}

function toolUseBlock(id: string, name: string, input: unknown, caller: unknown): Json {
  return { type: 'tool_use', id, name, input, caller: caller ?? { type: 'direct' } };
}

export function createAnthropicResponseEncoder(options: ResponseEncoderOptions = {}): ResponseEncoder {
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
    if (index === undefined) return [];
    blocks.delete(id);
    return [frame({ type: 'content_block_stop', index })];
  };

  return {
    push(event) {
      switch (event.type) {
        case 'message-start': {
          // Input and cache tokens are known before the first token. Output is 0 here and whole in
          // message_delta: clients that add the two (LangChain's ChatAnthropic) then count it once.
          const { reasoningTokens: _reasoning, ...input } = usage;
          const shell = messageShell({ ...options, responseId: options.responseId ?? event.responseId, model: options.model ?? event.model }, [], { ...input, outputTokens: 0 }, null);
          return [frame({ type: 'message_start', message: shell })];
        }
        case 'text-start':
          return openBlock(event.id, { type: 'text', text: '' });
        case 'text-delta':
          return delta(event.id, { type: 'text_delta', text: event.delta });
        case 'reasoning-start':
          return openBlock(event.id, { type: 'thinking', thinking: '', signature: '' });
        case 'reasoning-delta':
          return delta(event.id, { type: 'thinking_delta', thinking: event.delta });
        case 'reasoning-end':
          return [...(event.signature ? delta(event.id, { type: 'signature_delta', signature: event.signature }) : []), ...stop(event.id)];
        case 'tool-call-start':
          if (event.providerExecuted) return [];
          return openBlock(event.id, toolUseBlock(event.id, event.name, {}, anthropicState(event.providerState)?.caller));
        case 'tool-call-delta':
          return delta(event.id, { type: 'input_json_delta', partial_json: event.delta });
        case 'text-end':
        case 'tool-call-end':
          return stop(event.id);
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish':
          usage = { ...usage, ...event.usage };
          return [
            ...[...blocks.keys()].flatMap(stop),
            frame({
              type: 'message_delta',
              delta: { stop_reason: STOP_REASONS[event.finishReason] ?? 'end_turn', stop_sequence: null, stop_details: null, container: null },
              usage: usageCounts(usage),
            }),
            frame({ type: 'message_stop' }),
          ];
        default:
          return [];
      }
    },
    end: () => [],
    error: (error) => [sseFrame(errorBody(error), 'error')],
  };
}

function contentBlock(part: Part): Json | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning': {
      const state = anthropicState(part.providerState);
      if (state?.redactedData) return { type: 'redacted_thinking', data: state.redactedData };
      return { type: 'thinking', thinking: part.text, signature: part.signature ?? state?.signature ?? '' };
    }
    case 'tool-call':
      if (part.providerExecuted) return undefined;
      return toolUseBlock(part.id, part.name, part.input ?? {}, anthropicState(part.providerState)?.caller);
    default:
      return undefined;
  }
}

/** The non-streaming body: the Message object. */
export function encodeAnthropicResponse(response: Response, options: ResponseEncoderOptions = {}): Record<string, unknown> {
  const content = response.message.parts.map(contentBlock).filter((block): block is Json => block !== undefined);
  const identity = { ...options, model: options.model ?? response.model, responseId: options.responseId ?? response.id };
  return messageShell(identity, content, response.usage, STOP_REASONS[response.finishReason] ?? 'end_turn');
}

export function encodeAnthropicError(error: ResponseError): EncodedHttpError {
  // Anthropic answers 529 when overloaded (https://docs.anthropic.com/en/api/errors).
  const status = error.status ?? (error.code === 'overloaded' ? 529 : statusForCode(error.code));
  return { status, headers: { 'content-type': 'application/json', 'request-id': REQUEST_ID }, body: JSON.stringify(errorBody(error)) };
}

export const anthropicResponseEncoding: ResponseEncoding = {
  streamContentType: 'text/event-stream',
  createResponseEncoder: createAnthropicResponseEncoder,
  encodeResponse: encodeAnthropicResponse,
  encodeError: encodeAnthropicError,
};
