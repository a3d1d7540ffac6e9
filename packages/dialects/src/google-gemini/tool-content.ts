/**
 * A content tool output (text and files, `ToolContentOutput`) as a Gemini function response.
 *
 * - Gemini 3 and later take media inside the function response: `functionResponse.parts[]`
 *   of `inlineData` (`FunctionResponsePart` / `FunctionResponseBlob` in the API's discovery
 *   document; https://ai.google.dev/gemini-api/docs/function-calling#multimodal), for images
 *   (png, jpeg, webp) and PDFs. The text of the result goes in `response.output`,
 *   with a marker where each file stood. The discovery document's `FunctionResponseBlob` has no
 *   `displayName`, so the files are not referenced by `$ref` from the response; their order is
 *   the markers' order.
 * - Earlier models (and files of other types on Gemini 3: audio, video) take no media in a
 *   function response: the files go as `inlineData` parts of the same user turn, after its
 *   function responses, introduced by a text part naming the tool, as a user's files would.
 * - Text files are decoded into the text ("Text should not be sent as raw bytes, use the
 *   'FunctionResponse.response' field": `FunctionResponseBlob`).
 * - A file Gemini takes in neither place (or whose data is not base64) is a note in the text.
 */
import type { ToolContentOutput } from '@parlance/protocol';
import type { JsonObject } from '../shared/json.ts';
import { attachedMarker, contentText, decodeBase64Text, isBase64, omittedNote, type ToolFile } from '../shared/tool-content.ts';

/** Media types a function response part takes (Gemini 3's multimodal function responses). */
const IN_RESPONSE = new Set(['image/png', 'image/jpeg', 'image/webp', 'application/pdf']);

/** Media types a user turn takes inline (the discovery document's `Blob.mimeType` list, by family). */
function inUserTurn(mediaType: string): boolean {
  return /^(image|audio|video)\//.test(mediaType) || mediaType === 'application/pdf';
}

export interface GeminiToolContent {
  /** The function response's `response` object. */
  response: JsonObject;
  /** `functionResponse.parts` (Gemini 3+), empty when none. */
  parts: JsonObject[];
  /** Parts that follow the turn's function responses (files the response cannot hold). */
  after: JsonObject[];
}

/**
 * @param generation the model's Gemini generation (3 for `gemini-3-pro`), undefined when the name tells none.
 */
export function geminiToolContent(output: ToolContentOutput, toolName: string, generation: number | undefined): GeminiToolContent {
  const native = (generation ?? 0) >= 3;
  const parts: JsonObject[] = [];
  const after: JsonObject[] = [];
  const fileText = (file: ToolFile): string => {
    if (!isBase64(file.data)) return omittedNote(file, 'its data is not base64');
    const base = file.mediaType.split(';')[0]!.trim();
    if (base.startsWith('text/')) return decodeBase64Text(file.data);
    const blob = { inlineData: { mimeType: file.mediaType, data: file.data } };
    if (native && IN_RESPONSE.has(base)) parts.push(blob);
    else if (inUserTurn(base)) after.push(blob);
    else return omittedNote(file, 'Gemini does not take this media type');
    return attachedMarker(file);
  };
  const text = contentText(output, fileText);
  if (after.length > 0) after.unshift({ text: `Files returned by the ${toolName} tool:` });
  return { response: { output: text }, parts, after };
}
