/**
 * OpenAI Responses API streaming: `event: <type>` + `data: <json>` with a
 * `sequence_number`; response.created / in_progress, one output item per block
 * (reasoning with summary parts, message with output_text, function_call with
 * argument deltas), each closed by its `.done` events, then response.completed
 * (or response.incomplete for a length or content-filter stop) carrying the usage.
 * Streaming events: https://platform.openai.com/docs/api-reference/responses-streaming
 * Errors: https://platform.openai.com/docs/guides/error-codes
 */
import type { FinishReason, Usage } from '@parlance/protocol';
import { openaiErrorBody, openaiErrorStatus } from './openai-errors.ts';
import { sseFrame, type WireEncoder, type WireEncoderOptions, type WireError, type WireHttpError } from './types.ts';

interface Item {
  outputIndex: number;
  itemId: string;
  kind: 'reasoning' | 'message' | 'function_call';
  parts: string[];
  name?: string;
  callId?: string;
  signature?: string;
}

function responsesUsage(usage: Usage): Record<string, unknown> | null {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return null;
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.totalTokens ?? input + output,
  };
}

const INCOMPLETE: Partial<Record<FinishReason, string>> = { length: 'max_output_tokens', 'content-filter': 'content_filter' };

export function openaiResponsesEncoder(options: WireEncoderOptions = {}): WireEncoder {
  const items = new Map<string, Item>();
  const done: unknown[] = [];
  let sequence = 0;
  let outputIndex = 0;
  let usage: Usage = {};
  const responseId = options.responseId ?? 'resp_mock0001';
  const model = options.model ?? 'mock-model';
  const created = options.created ?? 1_700_000_000;
  const frame = (data: { type: string; [key: string]: unknown }) => sseFrame({ ...data, sequence_number: sequence++ }, data.type);

  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: responseId,
    object: 'response',
    created_at: created,
    status,
    error: null,
    incomplete_details: null,
    model,
    output: done,
    usage: null,
    ...extra,
  });

  const open = (id: string, kind: Item['kind'], prefix: string, extra: Partial<Item> = {}): Item => {
    const item: Item = { outputIndex: outputIndex++, itemId: `${prefix}_${id}`, kind, parts: [], ...extra };
    items.set(id, item);
    return item;
  };

  function completedItem(item: Item): Record<string, unknown> {
    const text = item.parts.join('');
    if (item.kind === 'reasoning') {
      const out: Record<string, unknown> = { id: item.itemId, type: 'reasoning', summary: [{ type: 'summary_text', text }] };
      // The opaque reasoning state a client sends back with `store: false`.
      if (item.signature !== undefined) out.encrypted_content = item.signature;
      return out;
    }
    if (item.kind === 'message') {
      return {
        id: item.itemId,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], text }],
      };
    }
    return { id: item.itemId, type: 'function_call', status: 'completed', arguments: text, call_id: item.callId, name: item.name };
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
        frame({ type: 'response.content_part.done', ...base, content_index: 0, part: { type: 'output_text', annotations: [], text } }),
      );
    } else {
      out.push(frame({ type: 'response.function_call_arguments.done', ...base, arguments: text }));
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
            frame({ type: 'response.created', response: response('in_progress', { output: [] }) }),
            frame({ type: 'response.in_progress', response: response('in_progress', { output: [] }) }),
          ];
        case 'reasoning-start': {
          const item = open(event.id, 'reasoning', 'rs');
          const base = { item_id: item.itemId, output_index: item.outputIndex };
          return [
            frame({ type: 'response.output_item.added', output_index: item.outputIndex, item: { id: item.itemId, type: 'reasoning', summary: [] } }),
            frame({ type: 'response.reasoning_summary_part.added', ...base, summary_index: 0, part: { type: 'summary_text', text: '' } }),
          ];
        }
        case 'text-start': {
          const item = open(event.id, 'message', 'msg');
          const base = { item_id: item.itemId, output_index: item.outputIndex };
          return [
            frame({
              type: 'response.output_item.added',
              output_index: item.outputIndex,
              item: { id: item.itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
            }),
            frame({ type: 'response.content_part.added', ...base, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } }),
          ];
        }
        case 'tool-call-start': {
          const item = open(event.id, 'function_call', 'fc', { name: event.name, callId: event.id });
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
          const base = { item_id: item.itemId, output_index: item.outputIndex, delta: event.delta };
          if (item.kind === 'reasoning') return [frame({ type: 'response.reasoning_summary_text.delta', ...base, summary_index: 0 })];
          if (item.kind === 'message') return [frame({ type: 'response.output_text.delta', ...base, content_index: 0, logprobs: [] })];
          return [frame({ type: 'response.function_call_arguments.delta', ...base })];
        }
        case 'reasoning-end':
          return close(event.id, event.signature);
        case 'text-end':
        case 'tool-call-end':
          return close(event.id);
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish': {
          usage = { ...usage, ...event.usage };
          const out = [...items.keys()].flatMap((id) => close(id));
          const reason = INCOMPLETE[event.finishReason];
          const final = response(reason ? 'incomplete' : 'completed', {
            usage: responsesUsage(usage),
            ...(reason ? { incomplete_details: { reason } } : {}),
          });
          out.push(frame({ type: reason ? 'response.incomplete' : 'response.completed', response: final }));
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

export function openaiResponsesHttpError(error: WireError): WireHttpError {
  return {
    status: error.status ?? openaiErrorStatus(error.code),
    headers: { 'content-type': 'application/json', 'x-request-id': 'req_mock0001' },
    body: JSON.stringify(openaiErrorBody(error)),
  };
}
