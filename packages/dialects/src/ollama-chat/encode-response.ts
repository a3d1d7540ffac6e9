/**
 * Protocol events -> Ollama `/api/chat` responses, as Ollama serves them.
 * Streaming: NDJSON, one object per line with `message.content` and `message.thinking`
 * deltas; tool calls arrive whole (arguments as an object, no ids); the last line has
 * `done: true`, `done_reason` and the token counts. With `stream: false` the same object
 * comes once, holding the whole message.
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 * Errors (HTTP and mid-stream `{ "error": ... }`): https://github.com/ollama/ollama/blob/main/docs/api.md#errors
 */
import type { FinishReason, Response, Usage } from '@parlance/protocol';
import { toArgumentsObject } from '../shared/json.ts';
import { ndjsonLine, statusForCode, type EncodedHttpError, type ResponseEncoder, type ResponseEncoderOptions, type ResponseEncoding, type ResponseError } from '../shared/response-encoding.ts';

type Json = Record<string, unknown>;

const DONE_REASONS: Partial<Record<FinishReason, string>> = { length: 'length' };

function createdAt(options: ResponseEncoderOptions): string {
  return new Date((options.created ?? 1_700_000_000) * 1000).toISOString();
}

function doneFields(reason: FinishReason, usage: Usage): Json {
  const out: Json = { done: true, done_reason: DONE_REASONS[reason] ?? 'stop' };
  if (usage.inputTokens !== undefined) out.prompt_eval_count = usage.inputTokens;
  if (usage.outputTokens !== undefined) out.eval_count = usage.outputTokens;
  return out;
}

export function createOllamaResponseEncoder(options: ResponseEncoderOptions = {}): ResponseEncoder {
  const tools = new Map<string, string>();
  let usage: Usage = {};
  const model = options.model ?? 'mock-model';
  const created = createdAt(options);
  const line = (message: Json, extra: Json = { done: false }) =>
    ndjsonLine({ model, created_at: created, message: { role: 'assistant', content: '', ...message }, ...extra });
  // A text or thinking delta, the lines most streams are made of: the same bytes as `line({ content })` and
  // `line({ thinking })`, with the fixed part stringified once (a gateway re-encodes every delta).
  const head = `{"model":${JSON.stringify(model)},"created_at":${JSON.stringify(created)},"message":{"role":"assistant","content":`;
  const tail = '},"done":false}\n';
  const thinkingHead = `${head}"","thinking":`;
  return {
    push(event) {
      switch (event.type) {
        case 'text-delta':
          return [head + JSON.stringify(event.delta) + tail];
        case 'reasoning-delta':
          return [thinkingHead + JSON.stringify(event.delta) + tail];
        case 'tool-call-start':
          if (!event.providerExecuted) tools.set(event.id, event.name);
          return [];
        case 'tool-call-end': {
          const name = tools.get(event.id);
          if (name === undefined) return [];
          tools.delete(event.id);
          return [line({ tool_calls: [{ function: { name, arguments: toArgumentsObject(event.input) } }] })];
        }
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish':
          usage = { ...usage, ...event.usage };
          return [line({}, doneFields(event.finishReason, usage))];
        default:
          return [];
      }
    },
    end: () => [],
    error: (error) => [ndjsonLine({ error: error.message })],
  };
}

/** The non-streaming body (`stream: false`). */
export function encodeOllamaResponse(response: Response, options: ResponseEncoderOptions = {}): Record<string, unknown> {
  let content = '';
  let thinking = '';
  const toolCalls: Json[] = [];
  for (const part of response.message.parts) {
    if (part.type === 'text') content += part.text;
    else if (part.type === 'reasoning') thinking += part.text;
    else if (part.type === 'tool-call' && !part.providerExecuted) {
      toolCalls.push({ function: { name: part.name, arguments: toArgumentsObject(part.input) } });
    }
  }
  const message: Json = { role: 'assistant', content };
  if (thinking !== '') message.thinking = thinking;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    model: options.model ?? response.model ?? 'mock-model',
    created_at: createdAt(options),
    message,
    ...doneFields(response.finishReason, response.usage),
  };
}

export function encodeOllamaError(error: ResponseError): EncodedHttpError {
  return {
    status: error.status ?? statusForCode(error.code),
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ error: error.message }),
  };
}

export const ollamaResponseEncoding: ResponseEncoding = {
  streamContentType: 'application/x-ndjson',
  createResponseEncoder: createOllamaResponseEncoder,
  encodeResponse: encodeOllamaResponse,
  encodeError: encodeOllamaError,
};
