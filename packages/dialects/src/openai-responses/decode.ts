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
 * the item's text and arguments are emitted from there, and items that never got an
 * `output_item.done` are taken from the final response's `output`.
 *
 * Items are matched by `item_id`, and by `output_index` when the id is one this decoder
 * has not seen: some servers put a fresh id on every event (GitHub Copilot), or use
 * different ids in `added` and `done` (mistral.rs, vLLM), and the index still names the item.
 */
import type { Event, FinishReason, ProviderState } from '@parlance/protocol';
import { createStreamState, guard, parseToolInput } from '../shared/stream-state.ts';
import type { Decoder, DecoderFailure, WireEvent } from '../types.ts';
import {
  builtinFailed,
  builtinFiles,
  builtinInput,
  builtinName,
  declaredTools,
  isBuiltinCall,
  isServerCustomCall,
  type DeclaredTools,
} from './builtin-tools.ts';
import { failureFrom } from './errors.ts';
import { incompleteReason, usageFrom } from './usage.ts';

export { usageFrom } from './usage.ts';

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
  /** A provider-executed custom tool call (xAI's server-side tools). */
  server?: boolean;
  done?: boolean;
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
  /** Blocks that received streamed text, so a later whole copy is not shown twice. */
  const filled = new Set<string>();
  /** Blocks a `content_part.added` / `reasoning_summary_part.added` announced. */
  const announced = new Set<string>();
  let declared: DeclaredTools | undefined;
  /**
   * A `response.failed` that said nothing about why. Azure follows it with an `error`
   * event carrying the reason (content_policy_violation), so it waits for that or the end.
   */
  let pendingFailure: DecoderFailure | undefined;

  const ps = (value: Json): ProviderState => ({ [DIALECT]: value });

  function invalid(out: Event[], message: string) {
    state.fail(out, { code: 'invalid_response', message });
  }

  /**
   * The key of the item an event refers to. A known item id wins; an unknown one with the
   * output index of an item still open is that item under a rotated id; otherwise the id
   * (or the index, when there is no id) names a new item.
   */
  function resolveKey(itemId: unknown, outputIndex: unknown): string {
    const index = typeof outputIndex === 'number' ? outputIndex : undefined;
    const byIndex = index !== undefined ? keyByIndex.get(index) : undefined;
    if (typeof itemId === 'string' && itemId !== '') {
      if (items.has(itemId)) return itemId;
      if (byIndex !== undefined && !items.get(byIndex)?.done) return byIndex;
      if (index !== undefined) keyByIndex.set(index, itemId);
      return itemId;
    }
    if (byIndex !== undefined) return byIndex;
    return index !== undefined ? `#${index}` : '#?';
  }

  const keyOf = (event: Json): string => resolveKey(event.item_id, event.output_index);

  /**
   * The part index a delta goes to. vLLM gives some deltas a new `content_index` each, and
   * carries the counter over from the previous item (vllm-project/vllm#45742): a delta for
   * a part nobody announced joins the item's latest part of the same kind.
   */
  function deltaIndex(key: string, prefix: '' | 's' | 'r', index: unknown): number {
    const n = typeof index === 'number' ? index : 0;
    if (announced.has(`${key}:${prefix}${n}`)) return n;
    const blocks = items.get(key)?.blocks ?? [];
    for (let i = blocks.length - 1; i >= 0; i--) {
      const rest = blocks[i]!.slice(key.length + 1);
      const kind = rest[0] === 's' || rest[0] === 'r' ? rest[0] : '';
      if (kind === prefix) return Number(kind ? rest.slice(1) : rest);
    }
    return n;
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
    declared ??= declaredTools(r.tools);
    state.start(out, {
      responseId: typeof r.id === 'string' ? r.id : undefined,
      model: typeof r.model === 'string' ? r.model : undefined,
    });
  }

  function reportUsage(out: Event[], response: Json) {
    const usage = usageFrom(response.usage);
    if (usage) state.addUsage(out, usage);
  }

  function itemAdded(out: Event[], item: Json, outputIndex: unknown, known?: string) {
    const key = known ?? (typeof item.id === 'string' && item.id !== '' ? item.id : `#${String(outputIndex)}`);
    if (typeof outputIndex === 'number') keyByIndex.set(outputIndex, key);
    const type = String(item.type);
    const entry = itemOf(key, type);
    if (type === 'message') {
      if (typeof item.phase === 'string') entry.phase = item.phase;
    } else if (isServerCustomCall(item, declared)) {
      entry.server = true;
      entry.toolId = key;
      state.toolStart(out, key, String(item.name), { providerExecuted: true, providerState: ps({ itemId: key, itemType: type }) });
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
    // Whole text only when none of the item was streamed: a server's part indexes may not
    // match between its deltas and its finished item.
    const streamed = entry.blocks.some((id) => filled.has(id));
    content.forEach((part, index) => {
      if (!isObject(part)) return;
      const text = part.type === 'refusal' ? part.refusal : part.text;
      if (part.type === 'refusal') refused = true;
      // Text that was not streamed (a provider that only sends whole items).
      if (typeof text === 'string' && text !== '' && !streamed) {
        state.text(out, textBlock(out, key, index, part.type === 'refusal'), text);
      }
      if (!entry.annotated && Array.isArray(part.annotations)) for (const a of part.annotations) annotation(out, entry, a);
    });
    for (const id of entry.blocks) state.end(out, id);
  }

  function reasoningDone(out: Event[], key: string, entry: ItemState, item: Json) {
    // Whole text only when none was streamed: servers that stream raw reasoning text may
    // also repeat it as a summary in the finished item.
    if (!entry.blocks.some((id) => filled.has(id))) {
      const fill = (parts: unknown, kind: 's' | 'r') => {
        if (!Array.isArray(parts)) return;
        parts.forEach((p, index) => {
          if (typeof p?.text === 'string' && p.text) state.reasoning(out, reasoningBlock(out, key, kind, index), p.text);
        });
      };
      fill(item.summary, 's');
      fill(item.content, 'r');
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
    if (entry.server || (!entry.toolId && isServerCustomCall(item, declared))) {
      if (!entry.toolId) itemAdded(out, item, undefined, key);
      const value = { itemId: key, itemType: type };
      const input = typeof item.input === 'string' ? parseToolInput(item.input) : { ok: true as const, value: item.input ?? {} };
      state.end(out, key, { input: input.ok ? input.value : input.raw, providerState: ps(value) });
      // The item goes back verbatim in the next request, like any built-in tool's.
      const result: Event = { type: 'tool-result', toolCallId: key, name: String(item.name), output: item, providerExecuted: true, providerState: ps(value) };
      if (builtinFailed(item)) result.isError = true;
      out.push(result);
      return;
    }
    if (type === 'function_call' || type === 'custom_tool_call' || (type === 'tool_search_call' && !isBuiltinCall(item))) {
      if (!entry.toolId) itemAdded(out, item, undefined, key);
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
    if (!entry.toolId) itemAdded(out, item, undefined, key);
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

  function itemDone(out: Event[], item: Json, key: string) {
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

  /**
   * Items of the final response that never got an `output_item.done` (servers that send
   * only the final response, or skip `done`). An item whose id or output index was already
   * finished is skipped: servers that rotate ids give the final copy yet another id.
   */
  function finalItems(out: Event[], response: Json) {
    if (!Array.isArray(response.output)) return;
    response.output.forEach((item: unknown, index: number) => {
      if (!isObject(item) || typeof item.type !== 'string') return;
      const id = typeof item.id === 'string' && item.id !== '' ? item.id : undefined;
      const byIndex = keyByIndex.get(index);
      const key = id !== undefined && items.has(id) ? id : (byIndex ?? id ?? `#${index}`);
      if (items.get(key)?.done) return;
      if (byIndex === undefined) keyByIndex.set(index, key);
      itemDone(out, item, key);
    });
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

  /**
   * The block the last text or argument delta went to, for the one that follows it: a stream
   * is mostly runs of deltas to one block, and resolving the item, part and block ids again
   * (string keys built and hashed per delta) was most of this decoder's own cost. Any other
   * event clears it, so it never outlives the state it was resolved from.
   */
  let last: { type: string; itemId: unknown; outputIndex: unknown; contentIndex: unknown; id: string } | undefined;

  function handle(out: Event[], event: Json, type: string) {
    const hit = last;
    if (hit !== undefined) {
      if (type === hit.type && event.item_id === hit.itemId && event.output_index === hit.outputIndex && event.content_index === hit.contentIndex && typeof event.delta === 'string') {
        if (hit.type === 'response.function_call_arguments.delta') return state.toolDelta(out, hit.id, event.delta);
        if (event.delta !== '') filled.add(hit.id);
        return state.text(out, hit.id, event.delta);
      }
      last = undefined;
    }
    switch (type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
        return started(out, event.response);
      case 'response.output_item.added':
      case 'response.output_item.done': {
        if (!isObject(event.item) || typeof event.item.type !== 'string') return invalid(out, `${type} without an item`);
        state.start(out);
        if (type.endsWith('added')) return itemAdded(out, event.item, event.output_index);
        return itemDone(out, event.item, resolveKey(event.item.id, event.output_index));
      }
      case 'response.content_part.added': {
        const part = event.part;
        const key = keyOf(event);
        if (items.get(key)?.done) return;
        if (isObject(part) && (part.type === 'output_text' || part.type === 'refusal')) announced.add(textBlock(out, key, event.content_index, part.type === 'refusal'));
        else if (isObject(part) && part.type === 'reasoning_text') announced.add(reasoningBlock(out, key, 'r', event.content_index));
        return;
      }
      case 'response.reasoning_summary_part.added': {
        const key = keyOf(event);
        if (items.get(key)?.done) return;
        return void announced.add(reasoningBlock(out, key, 's', event.summary_index));
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
      case 'response.function_call_arguments.delta': {
        if (typeof event.delta !== 'string') return invalid(out, `${type} without a string delta`);
        const key = keyOf(event);
        // A late delta for an item already done would reopen a closed block.
        if (items.get(key)?.done) return;
        if (type === 'response.output_text.delta' || type === 'response.refusal.delta') {
          const refusal = type === 'response.refusal.delta';
          if (refusal) refused = true;
          const id = textBlock(out, key, deltaIndex(key, '', event.content_index), refusal);
          if (event.delta !== '') filled.add(id);
          if (!refusal && state.isOpen(id)) last = { type, itemId: event.item_id, outputIndex: event.output_index, contentIndex: event.content_index, id };
          return state.text(out, id, event.delta);
        }
        if (type === 'response.reasoning_summary_text.delta' || type === 'response.reasoning_text.delta') {
          const summary = type === 'response.reasoning_summary_text.delta';
          const kind = summary ? 's' : 'r';
          const id = reasoningBlock(out, key, kind, deltaIndex(key, kind, summary ? event.summary_index : event.content_index));
          if (event.delta !== '') filled.add(id);
          return state.reasoning(out, id, event.delta);
        }
        const entry = items.get(key);
        // Arguments of a call never announced by `output_item.added` (its name is unknown):
        // they arrive whole in its `output_item.done` or the final response.
        if (!entry?.toolId) return;
        entry.argsStreamed = true;
        if (state.isOpen(entry.toolId)) last = { type, itemId: event.item_id, outputIndex: event.output_index, contentIndex: event.content_index, id: entry.toolId };
        return state.toolDelta(out, entry.toolId, event.delta);
      }
      case 'response.output_text.annotation.added':
        return annotation(out, itemOf(keyOf(event), 'message'), event.annotation);
      case 'response.completed':
      case 'response.incomplete':
        if (!isObject(event.response)) return invalid(out, `${type} without a response`);
        started(out, event.response);
        finalItems(out, event.response);
        return finishWith(out, event.response, type === 'response.completed' ? 'completed' : 'incomplete');
      case 'response.failed': {
        const response = isObject(event.response) ? event.response : {};
        started(out, response);
        reportUsage(out, response);
        // Some gateways put the error beside the response instead of inside it.
        const error = isObject(response.error) ? response.error : isObject(event.error) ? event.error : undefined;
        const failure = failureFrom(error, 'The response failed');
        if (error && (typeof error.code === 'string' || (typeof error.message === 'string' && error.message !== ''))) return state.fail(out, failure);
        pendingFailure = failure;
        return;
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
      // JSON.parse directly and the dispatch in a plain try (as the Anthropic decoder does): no
      // result object and no closure per event on the hot path.
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch (error) {
        invalid(out, `The provider sent invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
        return out;
      }
      if (!isObject(value)) {
        invalid(out, 'The provider sent an event that is not a JSON object');
        return out;
      }
      try {
        let type = typeof value.type === 'string' ? value.type : wire.event;
        // `{"error": {...}}` with no type: what the OpenAI SDKs treat as a mid-stream error.
        if (!type && isObject(value.error)) type = 'error';
        // After a reason-less `response.failed`, only an error with the reason is of use.
        if (pendingFailure && type !== 'error') return out;
        if (type) handle(out, value, type);
      } catch (error) {
        // What `guard` does for the other entry points: a bug or an absurd payload becomes an error event.
        return guard(state, out, () => {
          throw error;
        });
      }
      return out;
    },
    end() {
      const out: Event[] = [];
      if (pendingFailure) state.fail(out, pendingFailure);
      else state.endOfStream(out);
      return out;
    },
    fail(failure) {
      const out: Event[] = [];
      state.fail(out, failure);
      return out;
    },
  };
}
