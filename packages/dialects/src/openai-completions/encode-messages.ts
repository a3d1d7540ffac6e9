/**
 * Parlance messages to the Chat Completions `messages` array
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages).
 *
 * Handoff rule (shared by all dialects), as applied here:
 * - providerState of another dialect is ignored; only `providerState.openai_completions`
 *   is read.
 * - Reasoning parts of THIS dialect are sent back only where the provider needs them:
 *   text that arrived as `reasoning_content` goes back as `reasoning_content` on the
 *   assistant message (DeepSeek requires it after tool calls and ignores it otherwise:
 *   https://api-docs.deepseek.com/guides/thinking_mode; Moonshot and Z.ai read it the
 *   same way), and OpenRouter `reasoning_details` go back verbatim as `reasoning_details`
 *   (https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks),
 *   each only to a vendor that takes the field (`EncodeOptions.reasoningFields`; the engine's
 *   vendor rules set it): elsewhere it is left out with a warning.
 *   Text that arrived as `reasoning` (Groq, vLLM) or in Mistral `thinking` parts is not
 *   sent back: those APIs take no reasoning input.
 * - Reasoning parts with no state for this dialect (another provider's thinking) are
 *   sent as text `<thinking>...</thinking>` at their place in the assistant content
 *   (Chat Completions has no field for foreign reasoning); empty or redacted ones are dropped.
 * - Provider-executed tool calls and results (any dialect) are dropped: the target
 *   cannot replay another provider's server tools.
 * - Tool-call ids longer than OpenAI's 40-character limit are shortened the same
 *   way for the call and its result (`toolCallWireId`). An id that a later turn repeats
 *   (Gemini and Ollama send none, so their calls are numbered per response) gets a
 *   suffix there, and a result answers the latest call with its id.
 * - A tool result whose call is not in an earlier assistant message is dropped
 *   (the API rejects a `tool` message that answers no call).
 * - Tool results travel as `tool` messages right where they appear; a result's
 *   `isError` has no wire field, so its text is prefixed with `Error: `. A content output's
 *   files (a tool message takes text only) follow in a user message (tool-content.ts).
 * - System text (`request.system`, then every system-role message) is joined with a
 *   blank line into one leading `system` message. `system` rather than `developer`:
 *   every compatible provider knows it and OpenAI treats it as `developer` for
 *   reasoning models (https://platform.openai.com/docs/guides/text#message-roles-and-instruction-following).
 */
import { type Message, type ModelRequest, ParlanceError, type Part, toolContentOf } from '@parlance/protocol';
import { inlineFile, providerFileId } from '../shared/inline-file.ts';
import { repairToolPairs } from '../shared/tool-pairs.ts';
import type { EncodeOptions } from '../types.ts';
import { DIALECT_ID, isObject, type JsonObject } from './mappings.ts';
import { completionsToolContent, withToolFiles } from './tool-content.ts';

const MAX_TOOL_CALL_ID = 40;

/** FNV-1a, 32-bit, as 8 hex digits: a short stable digest for shortened ids. */
function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * OpenAI rejects tool-call ids over 40 characters ("string too long. Expected a string
 * with maximum length 40"; e.g. vercel/ai#8132, anomalyco/opencode#12653). Longer ids
 * (other providers' server tools, gateways) keep a prefix and gain a digest of the whole
 * id, so distinct ids stay distinct and the call and its result map alike.
 *
 * @example
 * toolCallWireId(part.id); // the id sent as tool_calls[].id
 */
export function toolCallWireId(id: string): string {
  if (id === '') return `call_${digest(id)}`;
  if (id.length <= MAX_TOOL_CALL_ID) return id;
  return `${id.slice(0, MAX_TOOL_CALL_ID - 9)}_${digest(id)}`;
}

/** Wire ids of the calls sent so far: the latest per original id, and every id used. */
interface CallIds {
  latest: Map<string, string>;
  used: Set<string>;
  /** Files of content tool outputs, by the tool message they belong to (sent after it: tool-content.ts). */
  files: Map<JsonObject, JsonObject[]>;
}

function callWireId(ids: CallIds, id: string): string {
  const base = toolCallWireId(id);
  let wire = base;
  for (let n = 2; ids.used.has(wire); n++) {
    const suffix = `_${n}`;
    wire = base.slice(0, MAX_TOOL_CALL_ID - suffix.length) + suffix;
  }
  ids.used.add(wire);
  ids.latest.set(id, wire);
  return wire;
}

function ownState(part: Part): JsonObject | undefined {
  const value = part.providerState?.[DIALECT_ID];
  return isObject(value) ? value : undefined;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

function toolMessage(part: Extract<Part, { type: 'tool-result' }>, ids: CallIds): JsonObject {
  const content = toolContentOf(part.output);
  const media = content ? completionsToolContent(content, part.name) : undefined;
  const text = media ? media.text : stringify(part.output);
  const message: JsonObject = { role: 'tool', tool_call_id: ids.latest.get(part.toolCallId), content: part.isError ? `Error: ${text}` : text };
  if (media?.files.length) ids.files.set(message, media.files);
  return message;
}

const AUDIO_FORMATS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};

/** User content parts: https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages-user-message-content */
function filePart(given: Extract<Part, { type: 'file' }>, path: (string | number)[]): JsonObject {
  const part = inlineFile(given, path);
  const { mediaType } = part;
  // A file uploaded to the Files API (not images: `image_url` takes no file id):
  // https://platform.openai.com/docs/guides/pdf-files#uploading-files
  const fileId = providerFileId(part, 'openai_completions');
  if (fileId !== undefined && !mediaType.startsWith('image/')) return { type: 'file', file: { file_id: fileId } };
  if (mediaType.startsWith('image/')) {
    // Images by URL or data URL (https://platform.openai.com/docs/guides/images-vision#giving-a-model-images-as-input).
    const url = part.url ?? `data:${mediaType};base64,${part.data}`;
    return { type: 'image_url', image_url: { url } };
  }
  const audio = AUDIO_FORMATS[mediaType];
  if (audio !== undefined && part.data !== undefined) {
    return { type: 'input_audio', input_audio: { data: part.data, format: audio } };
  }
  if (part.data !== undefined) {
    // PDFs and other files inline (https://platform.openai.com/docs/guides/pdf-files#base64-encoded-files).
    return {
      type: 'file',
      file: { filename: part.filename ?? `file.${mediaType.split('/')[1] ?? 'bin'}`, file_data: `data:${mediaType};base64,${part.data}` },
    };
  }
  throw new ParlanceError(
    'invalid_request',
    `Chat Completions accepts ${mediaType} files only as base64 data, not by URL (${part.url}); download it first or send it as text`,
    { path },
  );
}

function encodeUser(message: Message, index: number, known: CallIds, out: JsonObject[]): void {
  const content: JsonObject[] = [];
  message.parts.forEach((part, j) => {
    if (part.type === 'text') content.push({ type: 'text', text: part.text });
    else if (part.type === 'file') content.push(filePart(part, ['messages', index, 'parts', j]));
    else if (part.type === 'tool-result' && !part.providerExecuted && known.latest.has(part.toolCallId)) out.push(toolMessage(part, known));
  });
  if (content.length === 0) return;
  const only = content[0]!;
  out.push({ role: 'user', content: content.length === 1 && only.type === 'text' ? only.text : content });
}

/** Assistant turns: https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages-assistant-message */
function encodeAssistant(message: Message, known: CallIds, out: JsonObject[], options: EncodeOptions, dropped: Set<string>): void {
  const accepts = options.reasoningFields ?? ['reasoning_content', 'reasoning_details'];
  let content = '';
  let refusal = '';
  const toolCalls: JsonObject[] = [];
  const reasoningContent: string[] = [];
  const reasoningDetails: JsonObject[] = [];
  const results: JsonObject[] = [];
  for (const part of message.parts) {
    const own = ownState(part);
    switch (part.type) {
      case 'text':
        if (own?.refusal === true) refusal += part.text;
        else content += part.text;
        break;
      case 'reasoning':
        if (own) {
          // Only the fields this vendor takes back; the rest is left out, said once per field.
          if (Array.isArray(own.reasoningDetails)) {
            if (accepts.includes('reasoning_details')) reasoningDetails.push(...own.reasoningDetails.filter(isObject));
            else dropped.add('reasoning_details');
          }
          if (own.field === 'reasoning_content' && part.text !== '') {
            if (accepts.includes('reasoning_content')) reasoningContent.push(part.text);
            else dropped.add('reasoning_content');
          }
        } else if (!part.redacted && part.text.trim() !== '') {
          content += `<thinking>\n${part.text}\n</thinking>\n\n`;
        }
        break;
      case 'tool-call':
        if (part.providerExecuted) break;
        toolCalls.push({
          id: callWireId(known, part.id),
          type: 'function',
          // Unparsed arguments (invalid JSON the model sent) are kept as they came.
          function: { name: part.name, arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}) },
        });
        break;
      case 'tool-result':
        if (!part.providerExecuted && known.latest.has(part.toolCallId)) results.push(toolMessage(part, known));
        break;
      default:
        // Files and sources in an assistant turn have no Chat Completions form.
        break;
    }
  }
  if (content === '' && refusal === '' && toolCalls.length === 0 && reasoningContent.length === 0 && reasoningDetails.length === 0) {
    out.push(...results);
    return;
  }
  const encoded: JsonObject = { role: 'assistant', content: content === '' ? null : content };
  if (refusal !== '') encoded.refusal = refusal;
  if (toolCalls.length > 0) encoded.tool_calls = toolCalls;
  if (reasoningContent.length > 0) encoded.reasoning_content = reasoningContent.join('');
  if (reasoningDetails.length > 0) encoded.reasoning_details = reasoningDetails;
  out.push(encoded, ...results);
}

export function encodeMessages(request: ModelRequest, options: EncodeOptions = {}): JsonObject[] {
  const out: JsonObject[] = [];
  const dropped = new Set<string>();
  const system: string[] = [];
  if (request.system) system.push(request.system);
  for (const message of request.messages) {
    if (message.role !== 'system') continue;
    const text = message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    if (text !== '') system.push(text);
  }
  if (system.length > 0) out.push({ role: 'system', content: system.join('\n\n') });
  // Ids of the calls sent so far: a result is sent only after its call.
  const known: CallIds = { latest: new Map(), used: new Set(), files: new Map() };
  const indexOf = new Map(request.messages.map((message, index) => [message, index]));
  repairToolPairs(request.messages).forEach((message, repaired) => {
    const index = indexOf.get(message) ?? repaired;
    if (message.role === 'assistant') encodeAssistant(message, known, out, options, dropped);
    else if (message.role === 'user' || message.role === 'tool') encodeUser(message, index, known, out);
  });
  for (const field of dropped) options.onWarning?.({ setting: 'reasoning', message: `Earlier reasoning was not sent back as \`${field}\`: this provider does not accept the field` });
  return withToolFiles(out, known.files);
}
