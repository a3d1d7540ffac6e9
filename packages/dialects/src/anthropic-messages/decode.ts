/**
 * Decodes the Messages API stream: https://docs.anthropic.com/en/docs/build-with-claude/streaming
 *
 * `message_start` -> content blocks by `index` (`content_block_start` / `_delta` / `_stop`)
 * -> `message_delta` (stop reason, cumulative usage) -> `message_stop` (the terminal event:
 * `finish` is emitted there; a body that ends without it was cut and is reported as
 * `invalid_response`). `ping` and unknown event, block and delta types are ignored, and so
 * is anything after `message_stop` (Bedrock appends a `ping`; a recording may hold a second
 * response: one stream is one response). An `error` event fails the response, keeping
 * everything received before it.
 *
 * Platform variants of the same stream: Bedrock's base64 `bytes` chunks and its exception
 * events (bedrock.ts), and Vertex AI's google.rpc.Status error payloads (`onError`).
 * Blocks already complete in `message_start.message.content` (a resumed turn) are decoded whole.
 *
 * Blocks:
 * - text (`text_delta`; `citations_delta` -> one `source` event per cited URL);
 * - thinking (`thinking_delta`, `signature_delta` -> `reasoning-end.signature` and providerState);
 * - redacted_thinking -> an empty reasoning part marked `redacted`, its `data` in providerState;
 * - tool_use (`input_json_delta`; no fragments means no arguments: `{}`);
 * - server_tool_use / mcp_tool_use -> provider-executed tool calls; `*_tool_result` blocks
 *   (web_search, web_fetch, code_execution, bash/text_editor code execution, tool_search,
 *   mcp) -> provider-executed `tool-result` events whose `output` is the block's `content`;
 * - compaction (beta context management) -> one `compaction` event when the block ends: a
 *   compaction part holding the summary (neither reasoning nor the answer), with
 *   `type: 'compaction'` and the `encrypted_content` in providerState, so the encoder sends
 *   it back as a compaction block. https://docs.anthropic.com/en/docs/build-with-claude/compaction
 */
import type { Event, ProviderState } from '@parlance/protocol';
import { googleRpcFailure } from '../shared/google-rpc-error.ts';
import { createStreamState, guard, type StreamState } from '../shared/stream-state.ts';
import type { Decoder, DecoderOptions } from '../types.ts';
import { unwrapBedrock } from './bedrock.ts';
import {
  errorCodeOf,
  finishReasonOf,
  mergeRawUsage,
  readUsage,
  toUsage,
  withAnthropicState,
  type AnthropicState,
  type RawUsage,
} from './mappings.ts';
import { blockId } from '../shared/block-id.ts';

type Json = Record<string, unknown>;

interface Block {
  /** The protocol block id, or undefined for blocks that produce no open block (results, unknown). */
  id?: string;
  kind: 'text' | 'thinking' | 'redacted' | 'compaction' | 'tool' | 'other';
  signature?: string;
  /** Tool input sent whole in `content_block_start` (used when no fragments follow). */
  initialInput?: unknown;
  sawFragments?: boolean;
  state?: AnthropicState;
  /** A compaction block's summary so far. */
  text?: string;
}

/** A block's protocol id; blocks that arrived whole in `message_start` have negative indexes. */
function anthropicBlockId(kind: 'text' | 'reasoning' | 'compaction', index: number): string {
  return index < 0 ? `${blockId(kind, -1 - index)}s` : blockId(kind, index);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A block type naming a server tool's result (`web_search_tool_result`, `mcp_tool_result`, ...). */
function isToolResultType(type: string): boolean {
  return type.endsWith('_tool_result');
}

/** A server tool's result is an error when its content is an `*_error` object or MCP says so. */
function isErrorResult(block: Json): boolean {
  if (block.is_error === true) return true;
  const content = block.content;
  return isObject(content) && typeof content.type === 'string' && content.type.endsWith('_error');
}

/**
 * How every text and thinking delta the API writes begins (`textDeltas: false` skips those):
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming#text-delta
 */
const DELTA_HEAD = '{"type":"content_block_delta","index":';
const TEXT_DELTA = ',"delta":{"type":"text_delta","text":"';
const THINKING_DELTA = ',"delta":{"type":"thinking_delta","thinking":"';

/** Where `char` is in `data` before `end`, after only spaces and tabs; -1 if it is not there. */
function closing(data: string, end: number, char: number): number {
  let at = end - 1;
  while (at >= 0 && (data.charCodeAt(at) === 32 || data.charCodeAt(at) === 9)) at--;
  return at >= 0 && data.charCodeAt(at) === char ? at : -1;
}

/**
 * A decoder for one Messages API stream (what `anthropicMessages.createDecoder` gives). With
 * `textDeltas: false` (`DecoderOptions`), text and thinking deltas of an open block are skipped unparsed.
 *
 * @example
 * const decoder = createAnthropicDecoder();
 * for (const wire of frames) for (const event of decoder.push(wire)) handle(event);
 */
export function createAnthropicDecoder(options: DecoderOptions = {}): Decoder {
  const skipText = options.textDeltas === false;
  const state: StreamState = createStreamState();
  const blocks = new Map<number, Block>();
  /** Tool names by call id, so a server tool's result can name its tool. */
  const toolNames = new Map<string, string>();
  const citedUrls = new Set<string>();
  let raw: RawUsage = {};
  let stopReason: string | undefined;
  let sawMessageStart = false;

  function invalid(out: Event[], message: string) {
    state.fail(out, { code: 'invalid_response', message });
  }

  function reportUsage(out: Event[], value: unknown) {
    const update = readUsage(value);
    if (Object.keys(update).length === 0) return;
    raw = mergeRawUsage(raw, update);
    state.addUsage(out, toUsage(raw));
  }

  function onMessageStart(out: Event[], payload: Json) {
    const message = isObject(payload.message) ? payload.message : undefined;
    if (!message) return invalid(out, 'message_start without a message');
    state.start(out, { responseId: str(message.id), model: str(message.model) });
    reportUsage(out, message.usage);
    // A resumed turn (programmatic tool calling, a container continuation) can start with
    // content already complete in `message.content`, even with its `stop_reason` set and no
    // content_block events after it. Those blocks are decoded whole, under indexes of their
    // own (-1, -2, ...) so they never collide with the streamed blocks' indexes.
    const reason = str(message.stop_reason);
    if (reason) stopReason = reason;
    if (sawMessageStart) return; // a repeated message_start (seen in the wild) adds nothing new
    sawMessageStart = true;
    if (!Array.isArray(message.content)) return;
    message.content.forEach((block: unknown, i: number) => {
      if (!isObject(block) || typeof block.type !== 'string' || state.finished) return;
      const index = -1 - i;
      onBlockStart(out, { index, content_block: block });
      onBlockStop(out, { index });
    });
  }

  function onBlockStart(out: Event[], payload: Json) {
    const index = payload.index;
    const block = payload.content_block;
    if (typeof index !== 'number' || !isObject(block) || typeof block.type !== 'string') {
      return invalid(out, 'content_block_start without an index or a content_block');
    }
    if (blocks.has(index)) return invalid(out, `content_block_start for block ${index}, which already started`);
    const type = block.type;
    switch (type) {
      case 'text': {
        const id = anthropicBlockId('text', index);
        blocks.set(index, { id, kind: 'text' });
        state.openText(out, id);
        state.text(out, id, str(block.text) ?? '');
        // Streamed text blocks start with `citations: []` (or none); a whole block lists them.
        if (Array.isArray(block.citations)) for (const citation of block.citations) onCitation(out, citation);
        return;
      }
      case 'thinking': {
        const id = anthropicBlockId('reasoning', index);
        const entry: Block = { id, kind: 'thinking' };
        const signature = str(block.signature);
        if (signature) entry.signature = signature;
        blocks.set(index, entry);
        state.openReasoning(out, id);
        state.reasoning(out, id, str(block.thinking) ?? '');
        return;
      }
      case 'redacted_thinking': {
        const id = anthropicBlockId('reasoning', index);
        blocks.set(index, { id, kind: 'redacted' });
        state.openReasoning(out, id);
        state.annotate(id, { redacted: true, providerState: withAnthropicState({ redactedData: str(block.data) ?? '' }) });
        return;
      }
      case 'compaction': {
        const compaction: AnthropicState = { type: 'compaction' };
        const encrypted = str(block.encrypted_content);
        if (encrypted) compaction.encryptedContent = encrypted;
        // Buffered until the block ends: the summary arrives whole (content, or compaction_delta).
        blocks.set(index, { id: anthropicBlockId('compaction', index), kind: 'compaction', state: compaction, text: str(block.content) ?? '' });
        return;
      }
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use': {
        const id = str(block.id);
        const name = str(block.name);
        if (!id || name === undefined) return invalid(out, `${type} block ${index} without an id or a name`);
        const toolState: AnthropicState = {};
        if (type !== 'tool_use') toolState.type = type;
        const serverName = str(block.server_name);
        if (serverName) toolState.serverName = serverName;
        if (isObject(block.caller) && block.caller.type !== 'direct') toolState.caller = block.caller;
        const entry: Block = { id, kind: 'tool' };
        if (isObject(block.input) && Object.keys(block.input).length > 0) entry.initialInput = block.input;
        blocks.set(index, entry);
        toolNames.set(id, name);
        const options: { providerExecuted?: boolean; providerState?: ProviderState } = {};
        if (type !== 'tool_use') options.providerExecuted = true;
        if (Object.keys(toolState).length > 0) options.providerState = withAnthropicState(toolState);
        state.toolStart(out, id, name, options);
        return;
      }
      default: {
        blocks.set(index, { kind: 'other' });
        if (!isToolResultType(type)) return; // A block type this decoder does not know: ignored.
        const toolCallId = str(block.tool_use_id);
        if (!toolCallId) return invalid(out, `${type} block ${index} without a tool_use_id`);
        state.start(out);
        const event: Event = {
          type: 'tool-result',
          toolCallId,
          name: toolNames.get(toolCallId) ?? type.replace(/_tool_result$/, ''),
          output: block.content ?? null,
          providerExecuted: true,
          providerState: withAnthropicState({ type }),
        };
        if (isErrorResult(block)) event.isError = true;
        if (!state.finished) out.push(event);
      }
    }
  }

  /**
   * One citation -> one `source` per distinct URL. https://docs.anthropic.com/en/docs/build-with-claude/citations
   * `web_search_result_location` carries `url`; `search_result_location` carries `source`
   * (usually a URL). Document citations (`char_location`, `page_location`,
   * `content_block_location`) point into the request's own documents, not to a URL: no source.
   */
  function onCitation(out: Event[], value: unknown) {
    const citation = isObject(value) ? value : undefined;
    const url = citation ? (str(citation.url) ?? str(citation.source)) : undefined;
    if (!url || citedUrls.has(url) || state.finished) return;
    citedUrls.add(url);
    state.start(out);
    const event: Event = { type: 'source', url };
    const title = citation ? str(citation.title) : undefined;
    if (title) event.title = title;
    out.push(event);
  }

  function onBlockDelta(out: Event[], payload: Json) {
    const index = payload.index;
    const delta = payload.delta;
    if (typeof index !== 'number' || !isObject(delta) || typeof delta.type !== 'string') {
      return invalid(out, 'content_block_delta without an index or a delta');
    }
    let block = blocks.get(index);
    if (!block) {
      // A delta before its block's start: keep the text rather than lose it; other kinds cannot be placed.
      if (delta.type === 'text_delta') {
        block = { id: anthropicBlockId('text', index), kind: 'text' };
      } else if (delta.type === 'thinking_delta') {
        block = { id: anthropicBlockId('reasoning', index), kind: 'thinking' };
      } else {
        return;
      }
      blocks.set(index, block);
    }
    const id = block.id;
    if (id === undefined) return;
    switch (delta.type) {
      case 'text_delta':
        if (block.kind === 'text') state.text(out, id, str(delta.text) ?? '');
        return;
      case 'thinking_delta':
        if (block.kind === 'thinking') state.reasoning(out, id, str(delta.thinking) ?? '');
        return;
      case 'signature_delta':
        if (block.kind === 'thinking') block.signature = (block.signature ?? '') + (str(delta.signature) ?? '');
        return;
      case 'input_json_delta': {
        if (block.kind !== 'tool') return;
        const fragment = str(delta.partial_json) ?? '';
        if (fragment !== '') block.sawFragments = true;
        state.toolDelta(out, id, fragment);
        return;
      }
      case 'citations_delta':
        onCitation(out, delta.citation);
        return;
      case 'compaction_delta': {
        if (block.kind !== 'compaction') return;
        block.text = (block.text ?? '') + (str(delta.content) ?? '');
        const encrypted = str(delta.encrypted_content);
        if (encrypted) block.state = { ...block.state, encryptedContent: encrypted };
        return;
      }
      default:
        return; // A delta type this decoder does not know: ignored.
    }
  }

  function onBlockStop(out: Event[], payload: Json) {
    const index = payload.index;
    if (typeof index !== 'number') return invalid(out, 'content_block_stop without an index');
    const block = blocks.get(index);
    if (!block || block.id === undefined) return;
    const id = block.id;
    switch (block.kind) {
      case 'thinking':
        if (block.signature !== undefined) {
          state.annotate(id, { signature: block.signature });
          state.end(out, id, { providerState: withAnthropicState({ signature: block.signature }) });
        } else {
          state.end(out, id);
        }
        return;
      case 'compaction':
        if (block.text === undefined) return; // already emitted
        out.push({ type: 'compaction', text: block.text, providerState: withAnthropicState(block.state ?? { type: 'compaction' }) });
        delete block.text;
        return;
      case 'tool':
        if (!block.sawFragments && block.initialInput !== undefined) state.end(out, id, { input: block.initialInput });
        else state.end(out, id);
        return;
      default:
        state.end(out, id);
    }
  }

  /** A cut stream keeps the compaction summary that arrived (its block never ended). */
  function flushCompactions(out: Event[]) {
    for (const [index, block] of blocks) {
      if (block.kind !== 'compaction' || block.text === undefined) continue;
      onBlockStop(out, { index });
    }
  }

  function onMessageDelta(out: Event[], payload: Json) {
    const delta = isObject(payload.delta) ? payload.delta : undefined;
    const reason = delta ? str(delta.stop_reason) : undefined;
    if (reason) stopReason = reason;
    reportUsage(out, payload.usage);
  }

  function onError(out: Event[], payload: Json) {
    const error = isObject(payload.error) ? payload.error : undefined;
    const type = error ? str(error.type) : undefined;
    const message = (error ? str(error.message) : undefined) ?? 'The provider reported an error';
    if (type || !error) {
      state.fail(out, { code: errorCodeOf(type, message), message: type ? `${type}: ${message}` : message });
      return;
    }
    // Vertex AI reports its own failures (quota, permissions) in the google.rpc.Status shape
    // Gemini uses: `{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": ...}}`.
    // https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
    state.fail(out, googleRpcFailure(error));
  }

  function dispatch(out: Event[], payload: Json, type: string | undefined) {
    switch (type) {
      case 'message_start':
        return onMessageStart(out, payload);
      case 'content_block_start':
        return onBlockStart(out, payload);
      case 'content_block_delta':
        return onBlockDelta(out, payload);
      case 'content_block_stop':
        return onBlockStop(out, payload);
      case 'message_delta':
        return onMessageDelta(out, payload);
      case 'message_stop':
        return state.finish(out, stopReason ? finishReasonOf(stopReason) : 'other', stopReason);
      case 'error':
        return onError(out, payload);
      default:
        return; // ping and event types added later
    }
  }

  /**
   * Whether `data` is a text or thinking delta for a block already open as one, as the API writes it:
   * `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`. Read from its
   * first bytes and its last (`"}}`, with the whitespace the API pads some events with before a
   * brace), never parsed: anything else (another form, another delta type, a block not yet started)
   * is decoded as usual.
   */
  function skippable(data: string): boolean {
    if (!data.startsWith(DELTA_HEAD) || closing(data, closing(data, closing(data, data.length, 125), 125), 34) < 0) return false;
    const first = DELTA_HEAD.length;
    let at = first;
    let index = 0;
    for (let c = data.charCodeAt(at); c >= 48 && c <= 57 && at - first < 9; c = data.charCodeAt(++at)) index = index * 10 + c - 48;
    if (at === first || (at - first > 1 && data.charCodeAt(first) === 48)) return false;
    const kind = blocks.get(index)?.kind;
    if (kind === 'text') return data.startsWith(TEXT_DELTA, at);
    if (kind === 'thinking') return data.startsWith(THINKING_DELTA, at);
    return false;
  }

  return {
    push(wire) {
      const out: Event[] = [];
      if (state.finished) return out;
      if (skipText && skippable(wire.data)) return out;
      if (wire.data.trim() === '') return out;
      // JSON.parse directly (not through parseJson) and the dispatch in a plain try: no result
      // object and no closure per event on the hot path (one event per argument fragment).
      let payload: unknown;
      try {
        payload = JSON.parse(wire.data);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        invalid(out, `Invalid JSON in a ${wire.event ?? 'stream'} event: ${message}`);
        return out;
      }
      if (!isObject(payload)) {
        invalid(out, 'A stream event that is not a JSON object');
        return out;
      }
      try {
        let event = payload;
        if (event.type === undefined) {
          // No `type`: a Bedrock chunk or exception, or an event named only by its SSE name.
          const unwrapped = unwrapBedrock(payload, wire.event);
          if ('failure' in unwrapped) {
            state.fail(out, unwrapped.failure);
            return out;
          }
          event = unwrapped.payload;
        }
        // The payload's own `type` names the event; the SSE event name is the fallback.
        let type = str(event.type) ?? (event === payload ? wire.event : undefined);
        if (type === undefined && isObject(event.error)) type = 'error';
        dispatch(out, event, type);
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
      flushCompactions(out);
      state.endOfStream(out);
      return out;
    },
    fail(failure) {
      const out: Event[] = [];
      flushCompactions(out);
      state.fail(out, failure);
      return out;
    },
  };
}
