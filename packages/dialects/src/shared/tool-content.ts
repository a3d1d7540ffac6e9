/**
 * Helpers for tool results whose output is model content (`ToolContentOutput` from
 * `@parlance/protocol`: text and files, e.g. an MCP tool's image). Each dialect sends the
 * files as its own media content where the API takes media in a tool result, and else
 * next to it (see each dialect's encoder); these helpers hold what the dialects share:
 * the text form with a marker where each file was, and the note for a file a provider
 * cannot take at all. No file is ever sent as base64 inside text.
 */
import type { FilePart, ToolContentOutput, ToolContentPart } from '@parlance/protocol';

/** A file of a content output. */
export type ToolFile = Extract<ToolContentPart, { type: 'file' }>;

/** Standard base64 (padding optional): a file whose data is not cannot be sent as media. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether a file's data is base64 a provider can decode. */
export function isBase64(data: string): boolean {
  return data.length % 4 !== 1 && BASE64.test(data);
}

/** How a file is named in text: its file name, else its media type. */
function label(file: ToolFile): string {
  return file.filename ? `${file.filename} (${file.mediaType})` : file.mediaType;
}

/** Where a file sent apart from the result's text stood in it. */
export function attachedMarker(file: ToolFile): string {
  return `[file ${label(file)}: attached]`;
}

/** A file the provider cannot take, named in the text instead (never its bytes). */
export function omittedNote(file: ToolFile, why: string): string {
  return `[file ${label(file)}: not shown, ${why}]`;
}

/**
 * The text of a content output, parts joined by a blank line; `fileText` gives the text
 * of each file (a marker, a note, or nothing with '').
 */
export function contentText(output: ToolContentOutput, fileText: (file: ToolFile) => string): string {
  return output.content
    .map((part) => (part.type === 'text' ? part.text : fileText(part)))
    .filter((text) => text !== '')
    .join('\n\n');
}

/** A content file as a protocol file part, for a dialect's user-file encoder. */
export function asFilePart(file: ToolFile): FilePart {
  const part: FilePart = { type: 'file', mediaType: file.mediaType, data: file.data };
  if (file.filename !== undefined) part.filename = file.filename;
  return part;
}

/** A text file's base64 data as text (UTF-8). */
export function decodeBase64Text(data: string): string {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

/** The parts of a tool result read from a request (a gateway): a content output when a file is among them, else their text. */
export function decodedToolOutput(parts: ToolContentPart[]): string | ToolContentOutput {
  if (parts.some((part) => part.type === 'file')) return { type: 'content', content: parts };
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A base64 data URL's media type and data, undefined for anything else. */
export function parseBase64DataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}
