/**
 * Protocol events -> Responses API responses, as OpenAI serves them.
 * Streaming: `event: <type>` + `data: <json>` with a `sequence_number`; response.created /
 * in_progress, one output item per block (reasoning with a summary part, message with
 * output_text, function_call with argument deltas), each closed by its `.done` events, then
 * response.completed (or response.incomplete for a length or content-filter stop) carrying
 * the whole response and its usage. Reasoning's opaque state (`signature` in the protocol)
 * goes out as the item's `encrypted_content`, which a stateless client sends back.
 * Streaming events: https://platform.openai.com/docs/api-reference/responses-streaming
 * The response object (the non-streaming body): https://platform.openai.com/docs/api-reference/responses/object
 */
import type { FinishReason, Part, ProviderState, Response, Usage } from '@parlance/protocol';
import { isObject } from '../shared/json.ts';
import { openaiErrorBody, openaiHttpError } from '../shared/openai-error-body.ts';
import { sseFrame, type ResponseEncoder, type ResponseEncoderOptions, type ResponseEncoding } from '../shared/response-encoding.ts';

const DIALECT = 'openai_responses';

type Json = Record<string, unknown>;

interface Item {
  outputIndex: number;
  itemId: string;
  kind: 'reasoning' | 'message' | 'function_call';
  parts: string[];
  name?: string;
  callId?: string;
  signature?: string;
  /** This item's delta frame up to the delta's JSON, and from it to the sequence number (made at its first delta). */
  deltaHead?: string;
  deltaTail?: string;
}

/** Each item kind's delta event: its type, and the fields after `delta` (before `sequence_number`). */
const DELTA_FRAMES: Record<Item['kind'], { type: string; after: string }> = {
  reasoning: { type: 'response.reasoning_summary_text.delta', after: ',"summary_index":0' },
  message: { type: 'response.output_text.delta', after: ',"content_index":0,"logprobs":[]' },
  function_call: { type: 'response.function_call_arguments.delta', after: '' },
};

/** https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage */
function responsesUsage(usage: Usage): Json | null {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return null;
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0, cache_write_tokens: usage.cacheWriteTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.totalTokens ?? input + output,
  };
}

const INCOMPLETE: Partial<Record<FinishReason, string>> = { length: 'max_output_tokens', 'content-filter': 'content_filter' };

/** The encrypted reasoning this dialect keeps for a block that came from a Responses stream. */
function ownEncrypted(providerState: ProviderState | undefined): string | undefined {
  const state = providerState?.[DIALECT];
  return isObject(state) && typeof state.encryptedContent === 'string' ? state.encryptedContent : undefined;
}

/** The item id this dialect gave the block, when it came from a Responses stream. */
function ownItemId(providerState: ProviderState | undefined): string | undefined {
  const state = providerState?.[DIALECT];
  return isObject(state) && typeof state.itemId === 'string' ? state.itemId : undefined;
}

function responseObject(options: ResponseEncoderOptions, status: string, output: unknown[], extra: Json = {}): Json {
  return {
    id: options.responseId ?? 'resp_parlance0001',
    object: 'response',
    created_at: options.created ?? 1_700_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    // Fields every recorded response object carries (encoder-shape.test.ts); `store` says whether
    // the provider kept the response, which a stateless encoder does not do.
    max_output_tokens: null,
    model: options.model ?? 'mock-model',
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    truncation: 'disabled',
    metadata: {},
    tool_choice: 'auto',
    tools: [],
    temperature: null,
    top_p: null,
    ...extra,
  };
}

function reasoningItem(id: string, text: string, signature: string | undefined): Json {
  const out: Json = { id, type: 'reasoning', summary: text === '' ? [] : [{ type: 'summary_text', text }] };
  if (signature !== undefined) out.encrypted_content = signature;
  return out;
}

function messageItem(id: string, text: string): Json {
  return {
    id,
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
  };
}

function functionCallItem(id: string, callId: string, name: string, args: string): Json {
  return { id, type: 'function_call', status: 'completed', arguments: args, call_id: callId, name };
}

function finalExtra(reason: FinishReason, usage: Usage): Json {
  const incomplete = INCOMPLETE[reason];
  const reported = responsesUsage(usage);
  return { ...(reported ? { usage: reported } : {}), ...(incomplete ? { incomplete_details: { reason: incomplete } } : {}) };
}

export function createResponsesResponseEncoder(options: ResponseEncoderOptions = {}): ResponseEncoder {
  const items = new Map<string, Item>();
  const done: unknown[] = [];
  let sequence = 0;
  let outputIndex = 0;
  let usage: Usage = {};
  const frame = (data: { type: string; [key: string]: unknown }) => sseFrame({ ...data, sequence_number: sequence++ }, data.type);

  const open = (id: string, kind: Item['kind'], itemId: string, extra: Partial<Item> = {}): Item => {
    const item: Item = { outputIndex: outputIndex++, itemId, kind, parts: [], ...extra };
    items.set(id, item);
    return item;
  };

  function completedItem(item: Item): Json {
    const text = item.parts.join('');
    if (item.kind === 'reasoning') return reasoningItem(item.itemId, text, item.signature);
    if (item.kind === 'message') return messageItem(item.itemId, text);
    return functionCallItem(item.itemId, item.callId ?? item.itemId, item.name ?? '', text);
  }

  function close(id: string, signature?: string): string[] {
    const item = items.get(id);
    if (!item) return [];
    items.delete(id);
    if (signature !== undefined) item.signature = signature;
    const text = item.parts.join('');
    const base = { item_id: item.itemId, output_index: item.outputIndex };
    const out: string[] = [];
    if (item.kind === 'reasoning') {
      out.push(frame({ type: 'response.reasoning_summary_text.done', ...base, summary_index: 0, text }));
      out.push(frame({ type: 'response.reasoning_summary_part.done', ...base, summary_index: 0, part: { type: 'summary_text', text } }));
    } else if (item.kind === 'message') {
      out.push(frame({ type: 'response.output_text.done', ...base, content_index: 0, text, logprobs: [] }));
      out.push(
        frame({
          type: 'response.content_part.done',
          ...base,
          content_index: 0,
          part: { type: 'output_text', annotations: [], logprobs: [], text },
        }),
      );
    } else {
      out.push(frame({ type: 'response.function_call_arguments.done', ...base, name: item.name ?? '', arguments: text }));
    }
    const completed = completedItem(item);
    done.push(completed);
    out.push(frame({ type: 'response.output_item.done', output_index: item.outputIndex, item: completed }));
    return out;
  }

  return {
    push(event) {
      switch (event.type) {
        case 'message-start':
          return [
            frame({ type: 'response.created', response: responseObject(options, 'in_progress', []) }),
            frame({ type: 'response.in_progress', response: responseObject(options, 'in_progress', []) }),
          ];
        case 'reasoning-start': {
          const item = open(event.id, 'reasoning', ownItemId(event.providerState) ?? `rs_${event.id}`);
          const base = { item_id: item.itemId, output_index: item.outputIndex };
          return [
            frame({ type: 'response.output_item.added', output_index: item.outputIndex, item: { id: item.itemId, type: 'reasoning', summary: [] } }),
            frame({ type: 'response.reasoning_summary_part.added', ...base, summary_index: 0, part: { type: 'summary_text', text: '' } }),
          ];
        }
        case 'text-start': {
          const item = open(event.id, 'message', ownItemId(event.providerState) ?? `msg_${event.id}`);
          const base = { item_id: item.itemId, output_index: item.outputIndex };
          return [
            frame({
              type: 'response.output_item.added',
              output_index: item.outputIndex,
              item: { id: item.itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
            }),
            frame({
              type: 'response.content_part.added',
              ...base,
              content_index: 0,
              part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
            }),
          ];
        }
        case 'tool-call-start': {
          if (event.providerExecuted) return [];
          const item = open(event.id, 'function_call', ownItemId(event.providerState) ?? `fc_${event.id}`, { name: event.name, callId: event.id });
          return [
            frame({
              type: 'response.output_item.added',
              output_index: item.outputIndex,
              item: { id: item.itemId, type: 'function_call', status: 'in_progress', arguments: '', call_id: event.id, name: event.name },
            }),
          ];
        }
        case 'reasoning-delta':
        case 'text-delta':
        case 'tool-call-delta': {
          const item = items.get(event.id);
          if (!item) return [];
          item.parts.push(event.delta);
          // The bytes of `frame({ type, item_id, output_index, delta, ...after })`, with everything but the delta and
          // the sequence number stringified once per item: most of a stream is these frames, and a gateway re-encodes
          // each one (encode-response.test.ts checks them byte for byte against the whole frame stringified).
          if (item.deltaHead === undefined) {
            const { type, after } = DELTA_FRAMES[item.kind];
            item.deltaHead = `event: ${type}\ndata: {"type":"${type}","item_id":${JSON.stringify(item.itemId)},"output_index":${item.outputIndex},"delta":`;
            item.deltaTail = `${after},"sequence_number":`;
          }
          return [`${item.deltaHead}${JSON.stringify(event.delta)}${item.deltaTail}${sequence++}}\n\n`];
        }
        case 'reasoning-end':
          return close(event.id, event.signature ?? ownEncrypted(event.providerState));
        case 'text-end':
        case 'tool-call-end':
          return close(event.id);
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish': {
          usage = { ...usage, ...event.usage };
          const out = [...items.keys()].flatMap((id) => close(id));
          const incomplete = INCOMPLETE[event.finishReason] !== undefined;
          const final = responseObject(options, incomplete ? 'incomplete' : 'completed', done, finalExtra(event.finishReason, usage));
          out.push(frame({ type: incomplete ? 'response.incomplete' : 'response.completed', response: final }));
          return out;
        }
        default:
          return [];
      }
    },
    end: () => [],
    // https://platform.openai.com/docs/api-reference/responses-streaming/error
    error: (error) => {
      const body = openaiErrorBody(error).error;
      return [frame({ type: 'error', code: body.code, message: body.message, param: null })];
    },
  };
}

function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input ?? {}) ?? '{}');
}

function outputItems(parts: readonly Part[]): Json[] {
  const out: Json[] = [];
  parts.forEach((part, index) => {
    const own = ownItemId(part.providerState);
    const previous = out.at(-1);
    if (part.type === 'reasoning' && own !== undefined && previous?.type === 'reasoning' && previous.id === own) {
      // Summary parts of one reasoning item (decoded as a block each) go back as that item's summary list.
      if (part.text !== '') (previous.summary as Json[]).push({ type: 'summary_text', text: part.text });
      const encrypted = part.signature ?? ownEncrypted(part.providerState);
      if (encrypted !== undefined && previous.encrypted_content === undefined) previous.encrypted_content = encrypted;
    } else if (part.type === 'reasoning') out.push(reasoningItem(own ?? `rs_${index}`, part.text, part.signature ?? ownEncrypted(part.providerState)));
    else if (part.type === 'text') out.push(messageItem(own ?? `msg_${index}`, part.text));
    else if (part.type === 'tool-call' && !part.providerExecuted) {
      out.push(functionCallItem(own ?? `fc_${part.id}`, part.id, part.name, argumentsText(part.input)));
    }
  });
  return out;
}

/** The non-streaming body: the response object the stream's `response.completed` carries. */
export function encodeResponsesResponse(response: Response, options: ResponseEncoderOptions = {}): Record<string, unknown> {
  const identity = { ...options, model: options.model ?? response.model, responseId: options.responseId ?? response.id };
  const incomplete = INCOMPLETE[response.finishReason] !== undefined;
  return responseObject(identity, incomplete ? 'incomplete' : 'completed', outputItems(response.message.parts), finalExtra(response.finishReason, response.usage));
}

export const responsesResponseEncoding: ResponseEncoding = {
  streamContentType: 'text/event-stream',
  createResponseEncoder: createResponsesResponseEncoder,
  encodeResponse: encodeResponsesResponse,
  encodeError: openaiHttpError,
};
