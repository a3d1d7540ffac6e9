/**
 * A content tool output (text and files, `ToolContentOutput`) in Chat Completions.
 *
 * A `tool` message holds text only: "For tool messages, only type `text` is supported"
 * (`ChatCompletionRequestToolMessage.content` in the OpenAPI document;
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages-tool-message).
 * So the tool message carries the result's text, with a marker where each file stood, and the
 * files follow in a `user` message after the run of tool messages that answers the call
 * (a user message between them would break the pairing the API requires). The files take
 * the user content forms: images as `image_url` data URLs, wav/mp3 as `input_audio`, PDFs as
 * `file`. Text files are inlined in the tool message; anything else is a note there.
 */
import type { ToolContentOutput } from '@parlance/protocol';
import { attachedMarker, contentText, decodeBase64Text, isBase64, omittedNote, type ToolFile } from '../shared/tool-content.ts';
import type { JsonObject } from './mappings.ts';

const AUDIO_FORMATS: Record<string, string> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

function userFilePart(file: ToolFile, base: string): JsonObject | undefined {
  if (base.startsWith('image/')) return { type: 'image_url', image_url: { url: `data:${file.mediaType};base64,${file.data}` } };
  const audio = AUDIO_FORMATS[base];
  if (audio !== undefined) return { type: 'input_audio', input_audio: { data: file.data, format: audio } };
  if (base === 'application/pdf') return { type: 'file', file: { filename: file.filename ?? 'file.pdf', file_data: `data:${file.mediaType};base64,${file.data}` } };
  return undefined;
}

export interface CompletionsToolContent {
  /** The tool message's text. */
  text: string;
  /** User content parts with the files, empty when none. */
  files: JsonObject[];
}

export function completionsToolContent(output: ToolContentOutput, toolName: string): CompletionsToolContent {
  const files: JsonObject[] = [];
  const fileText = (file: ToolFile): string => {
    if (!isBase64(file.data)) return omittedNote(file, 'its data is not base64');
    const base = file.mediaType.split(';')[0]!.trim();
    if (base.startsWith('text/')) return decodeBase64Text(file.data);
    const part = userFilePart(file, base);
    if (!part) return omittedNote(file, 'Chat Completions takes images, wav or mp3 audio and PDFs');
    files.push(part);
    return attachedMarker(file);
  };
  const text = contentText(output, fileText);
  if (files.length > 0) files.unshift({ type: 'text', text: `Files returned by the ${toolName} tool:` });
  return { text, files };
}

/**
 * The messages with a user message of tool files after each run of tool messages that
 * carries some (`files` maps a tool message to its files).
 */
export function withToolFiles(messages: JsonObject[], files: Map<JsonObject, JsonObject[]>): JsonObject[] {
  if (files.size === 0) return messages;
  const out: JsonObject[] = [];
  let waiting: JsonObject[] = [];
  const flush = () => {
    if (waiting.length > 0) out.push({ role: 'user', content: waiting });
    waiting = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    out.push(message);
    if (message.role === 'tool') waiting.push(...(files.get(message) ?? []));
  }
  flush();
  return out;
}
