/**
 * Protocol messages -> Messages API `messages`: https://docs.anthropic.com/en/api/messages#body-messages
 *
 * Handoff rule (shared by every dialect):
 * - providerState of another dialect is ignored.
 * - Reasoning goes back as `thinking` (with its signature) or `redacted_thinking` (its data),
 *   and a compaction part as a `compaction` block, only when THIS dialect's providerState holds
 *   what the API needs (a reasoning part marked as compaction, from older threads, too).
 *   A compaction part of another dialect is dropped: the full history it summarized is sent. Other
 *   reasoning with text is sent as a text block `<thinking>...</thinking>` in the assistant
 *   turn (the API accepts no unsigned thinking); empty or redacted reasoning is dropped.
 * - Provider-executed tool calls and results go back as `server_tool_use` / `mcp_tool_use` /
 *   `*_tool_result` blocks when they came from this dialect; from another dialect they are dropped.
 * - Tool-call ids are rewritten to `^[a-zA-Z0-9_-]+$`, at most 64 characters, the same way for
 *   the call and its result, and kept unique: an id repeated by a later turn gets a suffix, and
 *   a result answers the latest call with its id. A result whose call is missing is dropped; a
 *   call whose result is missing gets an `is_error` result ("no result was recorded"), because
 *   the API requires every `tool_use` to be answered in the next user turn.
 * - Turns alternate user/assistant: consecutive turns of one role are merged, tool results
 *   become user turns with the `tool_result` blocks first (the API's rule).
 * Files: images (base64 jpeg/png/gif/webp, or URL) -> `image`; PDFs -> `document`; text/plain ->
 * a plain-text `document`. Anything else is an `invalid_request` error. Files and sources in
 * assistant turns are dropped (the API takes none there).
 * Tool results with content output (text and files, e.g. an MCP image): the same image and
 * document blocks inside the `tool_result` block; other files are named in a text block.
 */
import { ParlanceError, toolContentOf, type FilePart, type Message, type Part } from '@parlance/protocol';
import { inlineFile, providerFileId } from '../shared/inline-file.ts';
import { asFilePart, isBase64, omittedNote } from '../shared/tool-content.ts';
import { repairToolPairs } from '../shared/tool-pairs.ts';
import { anthropicState } from './mappings.ts';

type Json = Record<string, unknown>;

export interface Turn {
  role: 'user' | 'assistant';
  content: Json[];
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const SERVER_CALL_TYPES = new Set(['server_tool_use', 'mcp_tool_use']);
const MAX_ID_LENGTH = 64;
const MISSING_RESULT = 'No result was recorded for this tool call.';

/**
 * Rewrites ids to what the API accepts, without collisions, for one request. Every call gets
 * its own id: a thread can repeat one across turns (Gemini and Ollama send no ids, so their
 * calls are numbered per response), and the API rejects a request whose `tool_use` ids repeat
 * ("tool_use ids must be unique", e.g. anomalyco/opencode#1150 after a switch from Gemini).
 * A result answers the latest call with its id.
 */
export function createIdMapper(): { call(id: string): string; result(id: string): string } {
  const latest = new Map<string, string>();
  const used = new Set<string>();
  const call = (id: string) => {
    let base = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_ID_LENGTH);
    if (base === '') base = 'call';
    let candidate = base;
    for (let n = 2; used.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = base.slice(0, MAX_ID_LENGTH - suffix.length) + suffix;
    }
    used.add(candidate);
    latest.set(id, candidate);
    return candidate;
  };
  return { call, result: (id) => latest.get(id) ?? call(id) };
}

/** Splits a `data:<type>;base64,<data>` URL (the API takes base64 sources, not data URLs). */
function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}

function decodeBase64Text(data: string): string {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

/**
 * Image and document blocks: https://docs.anthropic.com/en/docs/build-with-claude/vision, .../pdf-support;
 * a file uploaded to the Files API by its id (`source.type: 'file'`, https://docs.anthropic.com/en/docs/build-with-claude/files).
 */
function fileBlock(given: FilePart, path: (string | number)[]): Json {
  const part = inlineFile(given, path);
  const fileId = providerFileId(part, 'anthropic_messages');
  if (fileId !== undefined) {
    const block: Json = { type: part.mediaType.startsWith('image/') ? 'image' : 'document', source: { type: 'file', file_id: fileId } };
    if (block.type === 'document' && part.filename) block.title = part.filename.slice(0, 500);
    return block;
  }
  let data = part.data;
  let mediaType = part.mediaType;
  const url = part.url;
  if (url !== undefined && url.startsWith('data:')) {
    const parsed = parseDataUrl(url);
    if (!parsed) throw new ParlanceError('invalid_request', 'A file data URL must be base64-encoded', { path });
    data = parsed.data;
    mediaType = parsed.mediaType || mediaType;
  }
  const remote = data === undefined ? url : undefined;
  if (mediaType.startsWith('image/')) {
    if (remote !== undefined) return { type: 'image', source: { type: 'url', url: remote } };
    if (!IMAGE_TYPES.has(mediaType)) {
      throw new ParlanceError('invalid_request', `Anthropic accepts jpeg, png, gif and webp images, not ${mediaType}`, { path });
    }
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
  }
  let block: Json;
  if (mediaType === 'application/pdf') {
    block = {
      type: 'document',
      source: remote !== undefined ? { type: 'url', url: remote } : { type: 'base64', media_type: 'application/pdf', data },
    };
  } else if (mediaType.startsWith('text/plain') && data !== undefined) {
    block = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: decodeBase64Text(data) } };
  } else {
    throw new ParlanceError('invalid_request', `Anthropic does not accept ${mediaType} files (images, PDFs and plain text only)`, {
      path,
    });
  }
  if (part.filename) block.title = part.filename.slice(0, 500);
  return block;
}

/** Tool inputs must be JSON objects; a raw (unparseable) string or anything else becomes `{}`. */
function toolInput(input: unknown): Json {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) return input as Json;
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Json;
    } catch {
      // fall through
    }
  }
  return {};
}

/** What a `tool_result` block may hold besides text: https://docs.anthropic.com/en/api/messages#body-messages-content (RequestToolResultBlock: text, image, document, search_result). */
function toolResultTakes(mediaType: string): boolean {
  return IMAGE_TYPES.has(mediaType) || mediaType === 'application/pdf' || mediaType.startsWith('text/plain');
}

/**
 * A tool result's `content`: a string, or for a content output (text and files) the blocks
 * themselves, images and documents as in a user turn
 * (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks).
 * Audio and other files have no block: a note names them.
 */
function toolResultContent(output: unknown, path: (string | number)[]): string | Json[] {
  const content = toolContentOf(output);
  if (!content) {
    if (typeof output === 'string') return output;
    if (output === undefined) return '';
    return JSON.stringify(output) ?? '';
  }
  const blocks: Json[] = [];
  for (const part of content.content) {
    if (part.type === 'text') {
      // Whitespace-only text blocks are rejected, as in any turn.
      if (part.text.trim() !== '') blocks.push({ type: 'text', text: part.text });
    } else if (!isBase64(part.data)) {
      blocks.push({ type: 'text', text: omittedNote(part, 'its data is not base64') });
    } else if (toolResultTakes(part.mediaType)) {
      blocks.push(fileBlock(asFilePart(part), path));
    } else {
      blocks.push({ type: 'text', text: omittedNote(part, 'Anthropic takes images (jpeg, png, gif, webp), PDFs and plain text') });
    }
  }
  return blocks.length > 0 ? blocks : '';
}

function reasoningBlock(part: Extract<Part, { type: 'reasoning' }>): Json | undefined {
  const state = anthropicState(part.providerState);
  if (state?.type === 'compaction') {
    const block: Json = { type: 'compaction', content: part.text === '' ? null : part.text };
    if (state.encryptedContent) block.encrypted_content = state.encryptedContent;
    return block;
  }
  if (typeof state?.redactedData === 'string' && state.redactedData !== '') {
    return { type: 'redacted_thinking', data: state.redactedData };
  }
  if (part.redacted) return undefined;
  if (typeof state?.signature === 'string' && state.signature !== '') {
    return { type: 'thinking', thinking: part.text, signature: state.signature };
  }
  return part.text.trim() === '' ? undefined : { type: 'text', text: `<thinking>${part.text}</thinking>` };
}

export function encodeMessages(thread: readonly Message[]): Turn[] {
  const messages = repairToolPairs(thread);
  const mapId = createIdMapper();
  // Calls that will be sent (local calls, and server calls of this dialect), so orphan results can be dropped.
  const sentCalls = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      if (part.type !== 'tool-call') continue;
      if (!part.providerExecuted || SERVER_CALL_TYPES.has(anthropicState(part.providerState)?.type ?? '')) sentCalls.add(part.id);
    }
  }

  const turns: Turn[] = [];
  const push = (role: Turn['role'], content: Json[]) => {
    if (content.length === 0) return;
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };

  messages.forEach((message, m) => {
    if (message.role === 'system') return; // joined into `system` by the caller
    const assistant = message.role === 'assistant';
    const content: Json[] = [];
    message.parts.forEach((part, p) => {
      const path = ['messages', m, 'parts', p];
      switch (part.type) {
        case 'text':
          // "text content blocks must contain non-whitespace text": Claude itself answers " " or
          // "\n\n" at times, and such a block sent back is rejected.
          if (part.text.trim() !== '') content.push({ type: 'text', text: part.text });
          return;
        case 'file':
          if (!assistant) content.push(fileBlock(part, path));
          return;
        case 'reasoning': {
          const block = assistant ? reasoningBlock(part) : undefined;
          if (block) content.push(block);
          return;
        }
        case 'tool-call': {
          if (!assistant || !sentCalls.has(part.id)) return;
          const state = anthropicState(part.providerState);
          if (part.providerExecuted) {
            const block: Json = { type: state!.type, id: part.id, name: part.name, input: toolInput(part.input) };
            if (state?.serverName) block.server_name = state.serverName;
            content.push(block);
            return;
          }
          const block: Json = { type: 'tool_use', id: mapId.call(part.id), name: part.name, input: toolInput(part.input) };
          if (state?.caller !== undefined) block.caller = state.caller;
          content.push(block);
          return;
        }
        case 'tool-result': {
          if (!sentCalls.has(part.toolCallId)) return;
          if (part.providerExecuted) {
            const type = anthropicState(part.providerState)?.type;
            if (!assistant || !type?.endsWith('_tool_result')) return;
            const block: Json = { type, tool_use_id: part.toolCallId, content: part.output };
            if (type === 'mcp_tool_result' && part.isError) block.is_error = true;
            content.push(block);
            return;
          }
          const block: Json = { type: 'tool_result', tool_use_id: mapId.result(part.toolCallId), content: toolResultContent(part.output, path) };
          if (part.isError) block.is_error = true;
          // A local result inside an assistant message still answers the call: it goes in a user turn.
          if (assistant) push('user', [block]);
          else content.push(block);
          return;
        }
        case 'source':
          return; // derived from citations; the API rebuilds them
        case 'compaction': {
          // Sent back as it came ("Users should round-trip these blocks"), only with this dialect's state.
          const state = anthropicState(part.providerState);
          if (!assistant || state?.type !== 'compaction') return;
          const block: Json = { type: 'compaction', content: part.text === '' ? null : part.text };
          if (state.encryptedContent) block.encrypted_content = state.encryptedContent;
          content.push(block);
          return;
        }
      }
    });
    push(assistant ? 'assistant' : 'user', content);
  });

  return withoutTrailingWhitespace(answerEveryCall(turns));
}

/**
 * A final assistant turn is a prefill the answer continues, and the API rejects one that ends
 * in whitespace ("final assistant content cannot end with trailing whitespace"): its last text
 * is trimmed at the end, and a block (or turn) left empty is dropped.
 */
function withoutTrailingWhitespace(turns: Turn[]): Turn[] {
  const last = turns[turns.length - 1];
  if (last?.role !== 'assistant') return turns;
  const block = last.content[last.content.length - 1];
  if (block?.type !== 'text' || typeof block.text !== 'string') return turns;
  const text = block.text.trimEnd();
  if (text !== '') last.content[last.content.length - 1] = { ...block, text };
  else last.content.pop();
  if (last.content.length === 0) turns.pop();
  return turns;
}

/**
 * Every `tool_use` must be answered by a `tool_result` in the next user turn, results first
 * in that turn: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks
 */
function answerEveryCall(turns: Turn[]): Turn[] {
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i]!;
    if (turn.role === 'user') {
      const results = turn.content.filter((b) => b.type === 'tool_result');
      if (results.length > 0) turn.content = [...results, ...turn.content.filter((b) => b.type !== 'tool_result')];
      continue;
    }
    const calls = turn.content.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    if (calls.length === 0 || i === turns.length - 1) continue;
    let next = turns[i + 1]!;
    if (next.role !== 'user') {
      next = { role: 'user', content: [] };
      turns.splice(i + 1, 0, next);
    }
    const answered = new Set(next.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
    const missing = calls
      .filter((id) => !answered.has(id))
      .map((id) => ({ type: 'tool_result', tool_use_id: id, content: MISSING_RESULT, is_error: true }));
    if (missing.length > 0) next.content = [...missing, ...next.content];
  }
  return turns;
}
