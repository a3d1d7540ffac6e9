/**
 * Encodes a ModelRequest as a Responses API request body.
 * https://platform.openai.com/docs/api-reference/responses/create
 * Input items: https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 *
 * Choices:
 * - The system prompt and system-role messages go to `instructions` (joined by a blank
 *   line), the API's own field for them, so `input` mirrors the thread turn by turn.
 * - `stop` is not part of the Responses API and is not sent.
 * - Prompt caching is automatic on OpenAI; `cache.key` becomes `prompt_cache_key`.
 *   Explicit `prompt_cache_breakpoint`s exist only on the newest models and are not placed.
 * - thinking: `{effort}` is sent as `reasoning.effort`; a `budgetTokens` alone is mapped
 *   to an effort (0 -> 'none', < 4096 -> 'low', < 16384 -> 'medium', else 'high');
 *   `false` -> effort 'none'. With thinking on, `reasoning.summary: 'auto'`, `store: false`
 *   and `include: ['reasoning.encrypted_content']`, so reasoning can be sent back inline
 *   (nothing is kept server-side). Without a thinking setting the model's default applies.
 * - Function tools are sent with `strict: false` unless the tool asks for strict: the API
 *   defaults to strict, which rejects many ordinary JSON Schemas.
 *
 * Handoff rule (shared by all dialects):
 * - providerState of other dialects is ignored.
 * - Reasoning is sent back as a `reasoning` item only with state of this dialect that the
 *   API can use: `encryptedContent`, or raw reasoning text (`kind: 'content'`, OpenRouter /
 *   DeepSeek). Other reasoning with text is sent as `<thinking>...</thinking>` text in
 *   the assistant turn; empty or redacted reasoning without usable state is dropped.
 * - Item ids (`msg_`, `fc_`) are sent only in an assistant turn that re-sends a reasoning
 *   item with its id: the API pairs a reasoning item with the items that follow it and
 *   rejects an id-bearing message whose reasoning item is missing.
 * - Built-in tool items of this dialect are sent back verbatim (the tool-result output);
 *   provider-executed calls and results from other dialects are dropped.
 * - Tool-call ids longer than 64 characters or with characters outside [A-Za-z0-9_.:-]
 *   are rewritten, the same way for the call and its result. An id that a later turn
 *   repeats (Gemini and Ollama send none, so their calls are numbered per response) gets a
 *   suffix there, and a result answers the latest call with its id. Calls without a result and
 *   results without a call are dropped (the API requires the pairs).
 * - Assistant file and source parts are dropped: assistant input holds text only.
 * - A content tool output (text and files) is a list of input items in the tool output item
 *   (tool-content.ts), not JSON text.
 */
import { toolContentOf, type Message, type ModelRequest, type Part, type ReasoningEffort, type ThinkingSetting } from '@parlance/protocol';
import { inlineFile, providerFileId } from '../shared/inline-file.ts';
import { strictOrLoose } from '../shared/strict-schema.ts';
import { samplingRules } from '../shared/sampling-rules.ts';
import { repairToolPairs } from '../shared/tool-pairs.ts';
import type { EncodeOptions } from '../types.ts';
import { summariesAsText } from '../shared/summary-parts.ts';
import { responsesToolContent } from './tool-content.ts';

const DIALECT = 'openai_responses';

type Json = Record<string, unknown>;

function stateOf(part: Part): Json | undefined {
  const value = part.providerState?.[DIALECT];
  return value && typeof value === 'object' ? (value as Json) : undefined;
}

/** A call id the API accepts (`call_id` max 64 characters), stable for the same input. */
export function toCallId(id: string): string {
  if (/^[A-Za-z0-9_.:-]{1,64}$/.test(id)) return id;
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619) >>> 0;
  const clean = id.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 55);
  return `${clean}_${hash.toString(36)}`.slice(0, 64);
}

/** https://platform.openai.com/docs/guides/reasoning (effort levels) */
function effortFor(thinking: ThinkingSetting): ReasoningEffort | 'none' {
  if (thinking === false) return 'none';
  if (thinking.effort) return thinking.effort;
  const budget = thinking.budgetTokens;
  if (budget === undefined) return 'medium';
  if (budget <= 0) return 'none';
  if (budget < 4096) return 'low';
  if (budget < 16384) return 'medium';
  return 'high';
}

function dataUrl(mediaType: string, data: string): string {
  return data.startsWith('data:') ? data : `data:${mediaType};base64,${data}`;
}

/** User content: https://platform.openai.com/docs/api-reference/responses/create#responses-create-input-input_item_list-input_message-content */
function userContent(parts: Part[], index: number): Json[] {
  const content: Json[] = [];
  for (const [j, given] of parts.entries()) {
    if (given.type === 'text') content.push({ type: 'input_text', text: given.text });
    else if (given.type === 'file') {
      const part = inlineFile(given, ['messages', index, 'parts', j]);
      const source = part.url ?? dataUrl(part.mediaType, part.data);
      // Uploaded to the Files API: by id (https://platform.openai.com/docs/guides/pdf-files#uploading-files).
      const fileId = providerFileId(part, 'openai_responses');
      if (fileId !== undefined) content.push(part.mediaType.startsWith('image/') ? { type: 'input_image', file_id: fileId, detail: 'auto' } : { type: 'input_file', file_id: fileId });
      else if (part.mediaType.startsWith('image/')) content.push({ type: 'input_image', image_url: source, detail: 'auto' });
      else if (part.url !== undefined) content.push({ type: 'input_file', file_url: part.url });
      else content.push({ type: 'input_file', filename: part.filename ?? 'file', file_data: source });
    }
  }
  return content;
}

/** A tool's output: text (JSON for a value), or for a content output (text and files) the list of input items (tool-content.ts). */
function toolOutput(output: unknown): string | Json[] {
  const content = toolContentOf(output);
  if (content) return responsesToolContent(content);
  return typeof output === 'string' ? output : JSON.stringify(output ?? null);
}

interface Pairs {
  /** Local call ids -> the item type they came from (custom tools and client tool search answer differently). */
  calls: Map<string, unknown>;
  results: Set<string>;
  /** Wire `call_id`s of the calls encoded so far: the latest per id, and every one used. */
  latest: Map<string, string>;
  used: Set<string>;
}

function wireCallId(pairs: Pairs, id: string): string {
  const base = toCallId(id);
  let wire = base;
  for (let n = 2; pairs.used.has(wire); n++) {
    const suffix = `_${n}`;
    wire = base.slice(0, 64 - suffix.length) + suffix;
  }
  pairs.used.add(wire);
  pairs.latest.set(id, wire);
  return wire;
}

/** Ids of local tool calls and results anywhere in the request, to keep only complete pairs. */
function pairsOf(messages: Message[]): Pairs {
  const pairs: Pairs = { calls: new Map(), results: new Set(), latest: new Map(), used: new Set() };
  for (const message of messages)
    for (const part of message.parts) {
      if (part.type === 'tool-call' && !part.providerExecuted) pairs.calls.set(part.id, stateOf(part)?.itemType);
      if (part.type === 'tool-result' && !part.providerExecuted) pairs.results.add(part.toolCallId);
    }
  return pairs;
}

function toolResultItem(part: Extract<Part, { type: 'tool-result' }>, pairs: Pairs): Json {
  const call_id = pairs.latest.get(part.toolCallId) ?? toCallId(part.toolCallId);
  const itemType = pairs.calls.get(part.toolCallId);
  if (itemType === 'custom_tool_call') return { type: 'custom_tool_call_output', call_id, output: toolOutput(part.output) };
  if (itemType === 'tool_search_call')
    return { type: 'tool_search_output', call_id, execution: 'client', tools: Array.isArray(part.output) ? part.output : [] };
  // https://platform.openai.com/docs/api-reference/responses/create#responses-create-input-input_item_list-item-function_tool_call_output
  return { type: 'function_call_output', call_id, output: toolOutput(part.output) };
}

interface ReasoningDraft {
  type: 'reasoning';
  id?: string;
  summary: string[];
  content: string[];
  encrypted?: string;
}

/** One assistant turn -> output items, in order. */
function assistantItems(message: Message, pairs: Pairs): Json[] {
  type Draft = Json | ReasoningDraft;
  const drafts: Draft[] = [];
  // Its own item, so it is set apart from the answer by a blank line (see mergeMessages).
  const thinking = (text: string) => pushText(`<thinking>${text}</thinking>`, undefined, false, true);

  function pushText(text: string, state: Json | undefined, refusal = false, separate = false) {
    const itemId = typeof state?.itemId === 'string' ? state.itemId : undefined;
    const last = drafts[drafts.length - 1] as Json | undefined;
    const entry = refusal ? { type: 'refusal', refusal: text } : { type: 'output_text', text, annotations: [] };
    if (!separate && last && last.type === 'message' && last.id === itemId && !last.separate) (last.content as Json[]).push(entry);
    else {
      const draft: Json = { type: 'message', role: 'assistant', id: itemId, content: [entry] };
      if (separate) draft.separate = true;
      if (typeof state?.phase === 'string') draft.phase = state.phase;
      drafts.push(draft);
    }
  }

  for (const part of message.parts) {
    const state = stateOf(part);
    switch (part.type) {
      case 'text':
        if (part.text !== '') pushText(part.text, state, state?.refusal === true);
        break;
      case 'reasoning': {
        const itemId = typeof state?.itemId === 'string' ? state.itemId : undefined;
        if (!state || !itemId) {
          if (part.text !== '' && !part.redacted) thinking(part.text);
          break;
        }
        const last = drafts[drafts.length - 1];
        let draft: ReasoningDraft;
        if (last && last.type === 'reasoning' && (last as ReasoningDraft).id === itemId) draft = last as ReasoningDraft;
        else {
          draft = { type: 'reasoning', id: itemId, summary: [], content: [] };
          drafts.push(draft);
        }
        if (typeof state.encryptedContent === 'string') draft.encrypted = state.encryptedContent;
        if (part.text !== '') (state.kind === 'content' ? draft.content : draft.summary).push(part.text);
        break;
      }
      case 'tool-call': {
        if (part.providerExecuted) {
          // A server tool search's call is its own item; other built-ins travel whole in their result.
          if (state?.itemType === 'tool_search_call')
            drafts.push({ type: 'tool_search_call', id: state.itemId, call_id: null, execution: 'server', status: 'completed', arguments: part.input ?? {} });
          break;
        }
        if (!pairs.results.has(part.id)) break;
        const call_id = wireCallId(pairs, part.id);
        const id = typeof state?.itemId === 'string' ? state.itemId : undefined;
        if (state?.itemType === 'custom_tool_call')
          drafts.push({ type: 'custom_tool_call', id, call_id, name: part.name, input: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? '') });
        else if (state?.itemType === 'tool_search_call')
          drafts.push({ type: 'tool_search_call', id, call_id, execution: 'client', arguments: part.input ?? {} });
        else {
          // https://platform.openai.com/docs/api-reference/responses/create#responses-create-input-input_item_list-item-function_tool_call
          const call: Json = { type: 'function_call', id, call_id, name: part.name, arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}) };
          if (typeof state?.namespace === 'string') call.namespace = state.namespace;
          drafts.push(call);
        }
        break;
      }
      case 'tool-result':
        if (part.providerExecuted) {
          const output = part.output as Json | undefined;
          if (state && output && typeof output === 'object' && typeof output.type === 'string') drafts.push(builtinItem(output));
        } else if (pairs.calls.has(part.toolCallId)) drafts.push(toolResultItem(part, pairs));
        break;
      default:
        break;
    }
  }

  // Reasoning the API can take back: encrypted (OpenAI) or raw text (compatible servers).
  const items: Json[] = [];
  let reasoningWithId = false;
  for (const draft of drafts) {
    if (draft.type !== 'reasoning') continue;
    const r = draft as ReasoningDraft;
    if (r.encrypted !== undefined || r.content.length > 0) reasoningWithId = true;
  }
  for (const draft of drafts) {
    if (draft.type === 'reasoning') {
      const r = draft as ReasoningDraft;
      if (r.encrypted === undefined && r.content.length === 0) {
        for (const text of r.summary) items.push(messageItem(`<thinking>${text}</thinking>`));
        continue;
      }
      // https://platform.openai.com/docs/api-reference/responses/create#responses-create-input-input_item_list-item-reasoning
      const item: Json = { type: 'reasoning', id: r.id, summary: r.summary.map((text) => ({ type: 'summary_text', text })) };
      if (r.encrypted !== undefined) item.encrypted_content = r.encrypted;
      if (r.content.length) item.content = r.content.map((text) => ({ type: 'reasoning_text', text }));
      items.push(item);
      continue;
    }
    const item = { ...(draft as Json) };
    delete item.separate;
    if (item.type === 'message') {
      if (reasoningWithId && typeof item.id === 'string') {
        // An output message as the API returned it.
        item.status = 'completed';
        item.content = (item.content as Json[]).map((c) => (c.type === 'output_text' ? { ...c, logprobs: [] } : c));
      } else {
        // Without an id: an easy input message with the text as a string.
        const text = (item.content as Json[]).map((c) => (c.type === 'refusal' ? c.refusal : c.text)).join('');
        const easy = messageItem(text);
        if (item.phase !== undefined) easy.phase = item.phase;
        items.push(easy);
        continue;
      }
    }
    if ((item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'message') && !reasoningWithId) delete item.id;
    if (item.id === undefined) delete item.id;
    items.push(item);
  }
  return mergeMessages(withoutTrailingReasoning(items));
}

/**
 * A reasoning item must be followed by the item it led to ("Item 'rs_…' was provided without its
 * required following item"): reasoning that ends an assistant turn (the stream was cut, the
 * answer was empty) is sent as `<thinking>` text instead, or dropped when it has none.
 */
function withoutTrailingReasoning(items: Json[]): Json[] {
  let end = items.length;
  while (end > 0 && items[end - 1]!.type === 'reasoning') end--;
  if (end === items.length) return items;
  const texts = items.slice(end).flatMap((item) => [
    ...((item.summary as Json[] | undefined) ?? []).map((s) => s.text as string),
    ...((item.content as Json[] | undefined) ?? []).map((c) => c.text as string),
  ]);
  return [...items.slice(0, end), ...texts.filter((t) => t.trim() !== '').map((t) => messageItem(`<thinking>${t}</thinking>`))];
}

/**
 * A built-in tool item as the API returned it, minus what the documented input schema
 * does not take back: web search `action.sources` other than URLs (e.g. `{type: 'api'}`).
 */
function builtinItem(output: Json): Json {
  const action = output.action as Json | undefined;
  if (output.type !== 'web_search_call' || !action || !Array.isArray(action.sources)) return output;
  const sources = (action.sources as Json[]).filter((s) => s?.type === 'url');
  const next: Json = { ...action };
  if (sources.length) next.sources = sources;
  else delete next.sources;
  return { ...output, action: next };
}

function messageItem(text: string): Json {
  return { type: 'message', role: 'assistant', content: text };
}

/** Adjacent id-less assistant text items (e.g. a `<thinking>` block and the answer) become one. */
function mergeMessages(items: Json[]): Json[] {
  const out: Json[] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (last && last.type === 'message' && item.type === 'message' && typeof last.content === 'string' && typeof item.content === 'string' && last.phase === item.phase) {
      out[out.length - 1] = { ...last, content: `${last.content}\n\n${item.content}` };
    } else out.push(item);
  }
  return out;
}

export function encodeResponsesRequest(original: ModelRequest, options: EncodeOptions = {}): Record<string, unknown> {
  const request = summariesAsText(original);
  const warn = options.onWarning;
  const instructions: string[] = [];
  if (request.system) instructions.push(request.system);
  const messages = repairToolPairs(request.messages);
  const pairs = pairsOf(messages);
  const input: Json[] = [];

  for (const [index, message] of messages.entries()) {
    if (message.role === 'system') {
      const text = message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
      if (text) instructions.push(text);
    } else if (message.role === 'assistant') {
      input.push(...assistantItems(message, pairs));
    } else {
      // User and tool messages: content parts in one message, tool results as their own items.
      const content = userContent(message.parts, index);
      if (content.length) input.push({ type: 'message', role: 'user', content });
      for (const part of message.parts)
        if (part.type === 'tool-result' && !part.providerExecuted && pairs.calls.has(part.toolCallId)) input.push(toolResultItem(part, pairs));
    }
  }

  const body: Record<string, unknown> = { model: request.model, input, stream: options.stream !== false };
  if (instructions.length) body.instructions = instructions.join('\n\n');
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  // OpenAI reasoning models reject sampling settings while they reason (the engine's catalog rule, applied here too).
  const rules = samplingRules('openai', request.model, true);
  const reasoning = rules?.noSamplingWhileReasoning === true && (request.thinking === undefined ? rules.reasonsByDefault !== false : request.thinking !== false);
  for (const [setting, field, value] of [['temperature', 'temperature', request.temperature], ['topP', 'top_p', request.topP]] as const) {
    if (value === undefined) continue;
    if (reasoning) options.onWarning?.({ setting, message: `${request.model} does not take ${field} while it reasons: ${field} was not sent` });
    else body[field] = value;
  }

  // https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools
  if (request.tools?.length) {
    body.tools = request.tools.map((tool, i) => {
      const { schema, strict } = strictOrLoose(tool.inputSchema, tool.strict === true, `tools[${i}].strict`, warn);
      const out: Json = { type: 'function', name: tool.name, parameters: schema, strict };
      if (tool.description !== undefined) out.description = tool.description;
      return out;
    });
  }
  // https://platform.openai.com/docs/api-reference/responses/create#responses-create-tool_choice
  if (request.toolChoice !== undefined && !request.tools?.length) warn?.({ setting: 'toolChoice', message: 'tool_choice was not sent: the request has no tools' });
  else if (request.toolChoice !== undefined) {
    body.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', name: request.toolChoice.name };
  }

  // https://platform.openai.com/docs/api-reference/responses/create#responses-create-reasoning
  if (request.thinking !== undefined) {
    const effort = effortFor(request.thinking);
    if (effort === 'none') body.reasoning = { effort };
    else {
      body.reasoning = { effort, summary: 'auto' };
      body.store = false;
      body.include = ['reasoning.encrypted_content'];
    }
  }

  // https://platform.openai.com/docs/api-reference/responses/create#responses-create-text-format
  if (request.output) {
    const { schema, strict } = strictOrLoose(request.output.schema, request.output.strict ?? true, 'output.strict', warn);
    const format: Json = {
      type: 'json_schema',
      name: (request.output.name ?? 'response').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64),
      schema,
      strict,
    };
    if (request.output.description !== undefined) format.description = request.output.description;
    body.text = { format };
  }

  // https://platform.openai.com/docs/guides/prompt-caching
  if (request.cache?.key !== undefined) body.prompt_cache_key = request.cache.key;

  return request.extra ? { ...body, ...request.extra } : body;
}
