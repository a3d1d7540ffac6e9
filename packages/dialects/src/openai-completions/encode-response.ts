/**
 * Protocol events -> Chat Completions responses, as OpenAI serves them.
 * Streaming: `data: <chat.completion.chunk>` frames, no `event:` line; the first chunk
 * carries the role, text and reasoning arrive as `content` / `reasoning_content` deltas,
 * tool calls as indexed deltas (id and name on the first, argument fragments after), the
 * finish reason in its own chunk, usage in a last chunk with empty `choices`
 * (`stream_options.include_usage`), then `data: [DONE]`. A failure after the stream began
 * is an `{ error }` object in a data frame (what OpenAI-compatible servers send, and what the
 * official SDK raises as an APIError).
 * https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 * Non-streaming body (`chat.completion`): https://platform.openai.com/docs/api-reference/chat/object
 * Reasoning as `reasoning_content`: https://api-docs.deepseek.com/guides/reasoning_model
 */
import type { FinishReason, Response, Usage } from '@parlance/protocol';
import { openaiErrorBody, openaiHttpError } from '../shared/openai-error-body.ts';
import { sseFrame, type ResponseEncoder, type ResponseEncoderOptions, type ResponseEncoding } from '../shared/response-encoding.ts';

const FINISH: Partial<Record<FinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  refusal: 'stop',
};

function finishOf(reason: FinishReason): string {
  return FINISH[reason] ?? 'stop';
}

/** https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage */
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

function hasUsage(usage: Usage): boolean {
  return usage.inputTokens !== undefined || usage.outputTokens !== undefined;
}

function identity(options: ResponseEncoderOptions, object: string) {
  return {
    id: options.responseId ?? 'chatcmpl-parlance0001',
    object,
    created: options.created ?? 1_700_000_000,
    model: options.model ?? 'mock-model',
  };
}

export function createCompletionsResponseEncoder(options: ResponseEncoderOptions = {}): ResponseEncoder {
  const toolIndex = new Map<string, number>();
  let usage: Usage = {};
  const base = identity(options, 'chat.completion.chunk');
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    sseFrame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
  // A text delta, the chunk most streams are made of: the same bytes as `chunk({ content })`, with the
  // fixed part stringified once (a gateway re-encodes every delta; this one stringify is of the text alone).
  const textHead = `data: ${JSON.stringify(base).slice(0, -1)},"choices":[{"index":0,"delta":{"content":`;
  const textTail = '},"logprobs":null,"finish_reason":null}]}\n\n';

  return {
    push(event) {
      switch (event.type) {
        case 'message-start':
          return [chunk({ role: 'assistant', content: '' })];
        case 'text-delta':
          return [textHead + JSON.stringify(event.delta) + textTail];
        case 'reasoning-delta':
          return [chunk({ reasoning_content: event.delta })];
        case 'tool-call-start': {
          if (event.providerExecuted) return [];
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
          const out = [chunk({}, finishOf(event.finishReason))];
          if (hasUsage(usage) && options.includeUsage !== false) out.push(sseFrame({ ...base, choices: [], usage: completionsUsage(usage) }));
          return out;
        }
        default:
          return [];
      }
    },
    end: () => ['data: [DONE]\n\n'],
    error: (error) => [sseFrame(openaiErrorBody(error))],
  };
}

function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input ?? {}) ?? '{}');
}

/** The non-streaming `chat.completion` body. */
export function encodeCompletionsResponse(response: Response, options: ResponseEncoderOptions = {}): Record<string, unknown> {
  let text = '';
  let reasoning = '';
  const toolCalls: Record<string, unknown>[] = [];
  for (const part of response.message.parts) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else if (part.type === 'tool-call' && !part.providerExecuted) {
      toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: argumentsText(part.input) } });
    }
  }
  const message: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const body: Record<string, unknown> = {
    ...identity({ ...options, model: options.model ?? response.model, responseId: options.responseId ?? response.id }, 'chat.completion'),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(response.finishReason) }],
  };
  if (hasUsage(response.usage)) body.usage = completionsUsage(response.usage);
  return body;
}

export const completionsResponseEncoding: ResponseEncoding = {
  streamContentType: 'text/event-stream',
  createResponseEncoder: createCompletionsResponseEncoder,
  encodeResponse: encodeCompletionsResponse,
  encodeError: openaiHttpError,
};
