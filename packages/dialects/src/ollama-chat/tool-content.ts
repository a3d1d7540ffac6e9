/**
 * A content tool output (text and files, `ToolContentOutput`) as an Ollama `tool` message.
 * Every chat message, a tool message too, takes `images` (base64, no data URL prefix):
 * `ChatMessage.images` in Ollama's OpenAPI document and "images (optional): a list of images
 * to include in the message" in docs/api.md (https://github.com/ollama/ollama/blob/main/docs/api.md#parameters-1).
 * So images stay on the tool message, with a marker in its text where each stood; text files
 * are inlined, as in a user message; anything else (audio, PDFs) is a note in the text.
 */
import type { ToolContentOutput } from '@parlance/protocol';
import type { JsonObject } from '../shared/json.ts';
import { attachedMarker, contentText, decodeBase64Text, isBase64, omittedNote, type ToolFile } from '../shared/tool-content.ts';

export function ollamaToolMessage(output: ToolContentOutput, toolName: string, isError: boolean | undefined): JsonObject {
  const images: string[] = [];
  const fileText = (file: ToolFile): string => {
    if (!isBase64(file.data)) return omittedNote(file, 'its data is not base64');
    if (file.mediaType.startsWith('image/')) {
      images.push(file.data);
      return attachedMarker(file);
    }
    if (file.mediaType.startsWith('text/')) return decodeBase64Text(file.data);
    return omittedNote(file, 'Ollama takes images and text only');
  };
  const text = contentText(output, fileText);
  const message: JsonObject = { role: 'tool', content: isError ? `Error: ${text}` : text, tool_name: toolName };
  if (images.length > 0) message.images = images;
  return message;
}
