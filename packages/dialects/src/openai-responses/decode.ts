/**
 * Decodes the Responses API event stream (SSE; each `data:` is JSON with a `type`,
 * repeated in the `event:` line).
 * Streaming events: https://platform.openai.com/docs/api-reference/responses-streaming
 *
 * Blocks:
 * - text: one block per message item and content index (`<itemId>:<contentIndex>`),
 *   providerState `{ openai_responses: { itemId, phase? } }` from the start (the
 *   `phase` of `output_item.added`, 'commentary' | 'final_answer').
 * - reasoning: one block per summary part (`<itemId>:s<n>`) or raw reasoning text
 *   part (`<itemId>:r<n>`, OpenRouter / DeepSeek / gpt-oss). They stay open until the
 *   item's `output_item.done`, because `encrypted_content` arrives only there; the end
 *   carries `{ itemId, encryptedContent? , kind? }` (encryptedContent on the item's
 *   first block only; `kind: 'content'` for raw reasoning text). An item with
 *   encrypted content and no text becomes one empty block marked `redacted`.
 *   An item with neither (reasoning without `include`) is not shown.
 * - function calls: the block id is `call_id` (what a `function_call_output` answers);
 *   the item id goes in providerState.
 * - built-in tools: see builtin-tools.ts.
 * Refusal content is shown as text and ends the response with 'refusal'.
 * Providers that send a whole item only in `output_item.done` (no deltas) are covered:
 * the item's text and arguments are emitted from there.
 */
import type { Event, FinishReason, ProviderState, Usage } from '@parlance/protocol';
import { createStreamState, guard, parseJson } from '../shared/stream-state.ts';
import type { Decoder, WireEvent } from '../types.ts';
import { builtinFailed, builtinFiles, builtinInput, builtinName, isBuiltinCall } from './builtin-tools.ts';
import { failureFrom } from './errors.ts';

const DIALECT = 'openai_responses';

type Json = Record<string, any>;

interface ItemState {
  type: string;
  /** Open blocks of this item, in order. */
  blocks: string[];
  phase?: string;
  /** Tool-call block id (call_id for function calls, item id for built-ins). */
  toolId?: string;
  argsStreamed?: boolean;
  annotated?: boolean;
  done?: boolean;
}

/**
 * Usage: https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 * `input_tokens` already includes the cached tokens (our convention), `output_tokens`
 * includes the reasoning tokens. OpenRouter adds `cost` (USD).
 */
export function usageFrom(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const u = raw as Json;
  const usage: Usage = {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const set = (key: keyof Usage, v: unknown) => {
    const n = num(v);
    if (n !== undefined) usage[key] = n;
  };
  set('inputTokens', u.input_tokens);
  set('outputTokens', u.output_tokens);
  set('cacheReadTokens', u.input_tokens_details?.cached_tokens);
  set('cacheWriteTokens', u.input_tokens_details?.cache_write_tokens);
  set('reasoningTokens', u.output_tokens_details?.reasoning_tokens);
  set('totalTokens', u.total_tokens);
  set('cost', u.cost);
  return Object.keys(usage).length ? usage : undefined;
}

/** `incomplete_details.reason`: https://platform.openai.com/docs/api-reference/responses/object#responses/object-incomplete_details */
function incompleteReason(reason: unknown): FinishReason {
  if (reason === 'max_output_tokens' || reason === 'max_tokens') return 'length';
  if (reason === 'content_filter') return 'content-filter';
  return 'other';
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createResponsesDecoder(): Decoder {
  const state = createStreamState();
  const items = new Map<string, ItemState>();
  const keyByIndex = new Map<number, string>();
  let clientCalls = 0;
  let refused = false;
  /** Server-side tool_search calls waiting for their tool_search_output item. */
  const pendingSearches: string[] = [];

  const ps = (value: Json): ProviderState => ({ [DIALECT]: value });

  function invalid(out: Event[], message: string) {
    state.fail(out, { code: 'invalid_response', message });
  }

  /** The key of the item an event refers to: its item id, else its output index. */
  function keyOf(event: Json): string {
    if (typeof event.item_id === 'string') return event.item_id;
    if (typeof event.output_index === 'number') return keyByIndex.get(event.output_index) ?? `#${event.output_index}`;
    return '#?';
  }

  function itemOf(key: string, type: string): ItemState {
    let item = items.get(key);
    if (!item) {
      item = { type, blocks: [] };
      items.set(key, item);
    }
    return item;
  }

  function textBlock(out: Event[], key: string, index: unknown, refusal = false): string {
    const id = `${key}:${typeof index === 'number' ? index : 0}`;
    const item = itemOf(key, 'message');
    if (!state.isOpen(id) && !item.blocks.includes(id)) {
      item.blocks.push(id);
      const value: Json = { itemId: key };
      if (item.phase !== undefined) value.phase = item.phase;
      // Sent back as refusal content in the next request.
      if (refusal) value.refusal = true;
      state.openText(out, id, ps(value));
    }
    return id;
  }

  function reasoningBlock(out: Event[], key: string, kind: 's' | 'r', index: unknown): string {
    const id = `${key}:${kind}${typeof index === 'number' ? index : 0}`;
    const item = itemOf(key, 'reasoning');
    if (!item.blocks.includes(id)) {
      item.blocks.push(id);
      state.openReasoning(out, id);
    }
    return id;
  }

  function started(out: Event[], response: unknown) {
    const r = isObject(response) ? response : {};
    state.start(out, {
      responseId: typeof r.id === 'string' ? r.id : undefined,
      model: typeof r.model === 'string' ? r.model : undefined,
    });
  }

  function reportUsage(out: Event[], response: Json) {
    const usage = usageFrom(response.usage);
    if (usage) state.addUsage(out, usage);
  }

  function itemAdded(out: Event[], item: Json, outputIndex: unknown) {
    const key = typeof item.id === 'string' && item.id !== '' ? item.id : `#${String(outputIndex)}`;
    if (typeof outputIndex === 'number') keyByIndex.set(outputIndex, key);
    const type = String(item.type);
    const entry = itemOf(key, type);
    if (type === 'message') {
      if (typeof item.phase === 'string') entry.phase = item.phase;
    } else if (type === 'function_call' || type === 'custom_tool_call' || (type === 'tool_search_call' && !isBuiltinCall(item))) {
      entry.toolId = typeof item.call_id === 'string' && item.call_id !== '' ? item.call_id : key;
      const name = type === 'tool_search_call' ? 'tool_search' : String(item.name ?? '');
      state.toolStart(out, entry.toolId, name, { providerState: ps({ itemId: key }) });
    } else if (isBuiltinCall(item)) {
      entry.toolId = key;
      state.toolStart(out, key, builtinName(type), { providerExecuted: true, providerState: ps({ itemId: key, itemType: type }) });
    }
  }

  function messageDone(out: Event[], key: string, entry: ItemState, item: Json) {
    const content: Json[] = Array.isArray(item.content) ? item.content : [];
    content.forEach((part, index) => {
      if (!isObject(part)) return;
      const text = part.type === 'refusal' ? part.refusal : part.text;
      if (part.type === 'refusal') refused = true;
      // Text that was not streamed (a provider that only sends whole items).
      if (typeof text === 'string' && text !== '' && !entry.blocks.includes(`${key}:${index}`)) {
        state.text(out, textBlock(out, key, index, part.type === 'refusal'), text);
      }
      if (!entry.annotated && Array.isArray(part.annotations)) for (const a of part.annotations) annotation(out, entry, a);
    });
    for (const id of entry.blocks) state.end(out, id);
  }

  function reasoningDone(out: Event[], key: string, entry: ItemState, item: Json) {
    if (entry.blocks.length === 0) {
      const parts: [string, 's' | 'r'][] = [];
      for (const p of Array.isArray(item.summary) ? item.summary : []) if (typeof p?.text === 'string' && p.text) parts.push([p.text, 's']);
      for (const p of Array.isArray(item.content) ? item.content : []) if (typeof p?.text === 'string' && p.text) parts.push([p.text, 'r']);
      parts.forEach(([text, kind], index) => {
        state.reasoning(out, reasoningBlock(out, key, kind, index), text);
      });
    }
    const encrypted = typeof item.encrypted_content === 'string' && item.encrypted_content !== '' ? item.encrypted_content : undefined;
    if (entry.blocks.length === 0) {
      if (!encrypted) return;
      const id = reasoningBlock(out, key, 's', 0);
      state.annotate(id, { redacted: true });
    }
    entry.blocks.forEach((id, index) => {
      const value: Json = { itemId: key };
      if (index === 0 && encrypted) value.encryptedContent = encrypted;
      if (id.slice(key.length + 1).startsWith('r')) value.kind = 'content';
      state.end(out, id, { providerState: ps(value) });
    });
  }

  function toolDone(out: Event[], key: string, entry: ItemState, item: Json) {
    const type = String(item.type);
    if (type === 'function_call' || type === 'custom_tool_call' || (type === 'tool_search_call' && !isBuiltinCall(item))) {
      if (!entry.toolId) itemAdded(out, item, undefined);
      const id = entry.toolId ?? key;
      const value: Json = { itemId: key };
      if (type !== 'function_call') value.itemType = type;
      if (typeof item.namespace === 'string') value.namespace = item.namespace;
      clientCalls++;
      if (type === 'function_call') {
        if (!entry.argsStreamed && typeof item.arguments === 'string') state.toolDelta(out, id, item.arguments);
        state.end(out, id, { providerState: ps(value) });
      } else {
        // Custom tools take free text; tool search takes an object: both arrive whole.
        state.end(out, id, { input: type === 'custom_tool_call' ? (item.input ?? '') : (item.arguments ?? {}), providerState: ps(value) });
      }
      return;
    }
    if (type === 'tool_search_output') {
      const callId = pendingSearches.shift() ?? key;
      out.push({ type: 'tool-result', toolCallId: callId, name: 'tool_search', output: item, providerExecuted: true, providerState: ps({ itemId: key, itemType: type }) });
      return;
    }
    if (!isBuiltinCall(item)) return;
    if (!entry.toolId) itemAdded(out, item, undefined);
    state.end(out, key, { input: builtinInput(item), providerState: ps({ itemId: key, itemType: type }) });
    if (type === 'tool_search_call') {
      // Its result is the next item (`tool_search_output`).
      pendingSearches.push(key);
      return;
    }
    out.push(...builtinFiles(item, key));
    const result: Event = { type: 'tool-result', toolCallId: key, name: builtinName(type), output: item, providerExecuted: true, providerState: ps({ itemId: key, itemType: type }) };
    if (builtinFailed(item)) result.isError = true;
    out.push(result);
  }

  function itemDone(out: Event[], item: Json, outputIndex: unknown) {
    const key = typeof item.id === 'string' && item.id !== '' ? item.id : typeof outputIndex === 'number' ? (keyByIndex.get(outputIndex) ?? `#${outputIndex}`) : '#?';
    const entry = itemOf(key, String(item.type));
    if (entry.done) return;
    entry.done = true;
    if (item.type === 'message') messageDone(out, key, entry, item);
    else if (item.type === 'reasoning') reasoningDone(out, key, entry, item);
    else toolDone(out, key, entry, item);
  }

  /** Annotations: https://platform.openai.com/docs/api-reference/responses/object#responses/object-output-output_message-content-output_text-annotations */
  function annotation(out: Event[], entry: ItemState, a: unknown) {
    entry.annotated = true;
    if (!isObject(a) || state.finished) return;
    // Only URL citations have a URL; file and container-file citations name files by id and are not sources.
    if (a.type === 'url_citation' && typeof a.url === 'string') {
      const source: Event = { type: 'source', url: a.url };
      if (typeof a.title === 'string' && a.title !== '') source.title = a.title;
      out.push(source);
    }
  }

  function finishWith(out: Event[], response: Json, fallback: 'completed' | 'incomplete') {
    reportUsage(out, response);
    const status = typeof response.status === 'string' ? response.status : fallback;
    if (status === 'cancelled') return state.finish(out, 'cancelled', status);
    if (fallback === 'incomplete' || status === 'incomplete') {
      const reason = response.incomplete_details?.reason;
      return state.finish(out, incompleteReason(reason), typeof reason === 'string' ? reason : status);
    }
    const finish: FinishReason = refused ? 'refusal' : clientCalls > 0 ? 'tool-calls' : 'stop';
    state.finish(out, finish, status);
  }

  function handle(out: Event[], event: Json, type: string) {
    switch (type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
        return started(out, event.response);
      case 'response.output_item.added':
      case 'response.output_item.done': {
        if (!isObject(event.item) || typeof event.item.type !== 'string') return invalid(out, `${type} without an item`);
        state.start(out);
        return type.endsWith('added') ? itemAdded(out, event.item, event.output_index) : itemDone(out, event.item, event.output_index);
      }
      case 'response.content_part.added': {
        const part = event.part;
        const key = keyOf(event);
        if (items.get(key)?.done) return;
        if (isObject(part) && (part.type === 'output_text' || part.type === 'refusal')) textBlock(out, key, event.content_index, part.type === 'refusal');
        else if (isObject(part) && part.type === 'reasoning_text') reasoningBlock(out, key, 'r', event.content_index);
        return;
      }
      case 'response.reasoning_summary_part.added':
        if (items.get(keyOf(event))?.done) return;
        return void reasoningBlock(out, keyOf(event), 's', event.summary_index);
      case 'response.output_text.delta':
      case 'response.refusal.delta':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
      case 'response.function_call_arguments.delta': {
        if (typeof event.delta !== 'string') return invalid(out, `${type} without a string delta`);
        const key = keyOf(event);
        // A late delta for an item already done would reopen a closed block.
        if (items.get(key)?.done) return;
        if (type === 'response.output_text.delta') return state.text(out, textBlock(out, key, event.content_index), event.delta);
        if (type === 'response.refusal.delta') {
          refused = true;
          return state.text(out, textBlock(out, key, event.content_index, true), event.delta);
        }
        if (type === 'response.reasoning_summary_text.delta') return state.reasoning(out, reasoningBlock(out, key, 's', event.summary_index), event.delta);
        if (type === 'response.reasoning_text.delta') return state.reasoning(out, reasoningBlock(out, key, 'r', event.content_index), event.delta);
        const entry = items.get(key);
        if (!entry?.toolId) return invalid(out, `${type} for an unknown function call`);
        entry.argsStreamed = true;
        return state.toolDelta(out, entry.toolId, event.delta);
      }
      case 'response.output_text.annotation.added':
        return annotation(out, itemOf(keyOf(event), 'message'), event.annotation);
      case 'response.completed':
      case 'response.incomplete':
        if (!isObject(event.response)) return invalid(out, `${type} without a response`);
        started(out, event.response);
        return finishWith(out, event.response, type === 'response.completed' ? 'completed' : 'incomplete');
      case 'response.failed': {
        const response = isObject(event.response) ? event.response : {};
        started(out, response);
        reportUsage(out, response);
        return state.fail(out, failureFrom(response.error, 'The response failed'));
      }
      case 'error':
        return state.fail(out, failureFrom(event, 'The provider reported an error'));
      default:
        // Progress events (web_search_call.searching, ...), *.done events whose content the
        // item's `output_item.done` repeats, and event types newer than this decoder.
        return;
    }
  }

  return {
    push(wire: WireEvent) {
      const out: Event[] = [];
      if (state.finished) return out;
      const data = wire.data.trim();
      if (data === '' || data === '[DONE]') return out;
      return guard(state, out, () => {
        const parsed = parseJson(data);
        if (!parsed.ok) return invalid(out, `The provider sent invalid JSON: ${parsed.message}`);
        if (!isObject(parsed.value)) return invalid(out, 'The provider sent an event that is not a JSON object');
        const type = typeof parsed.value.type === 'string' ? parsed.value.type : wire.event;
        if (type) handle(out, parsed.value, type);
      });
    },
    end() {
      const out: Event[] = [];
      state.endOfStream(out);
      return out;
    },
    fail(failure) {
      const out: Event[] = [];
      state.fail(out, failure);
      return out;
    },
  };
}
