/**
 * A content tool output (text and files, `ToolContentOutput`) as the `output` of a
 * `function_call_output` / `custom_tool_call_output` item: the API takes a list of
 * `input_text`, `input_image` and `input_file` there
 * (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input-input_item_list-item-function_tool_call_output-output;
 * `FunctionCallOutputItemParam.output` in the OpenAPI document). Images go as `input_image`
 * and PDFs as `input_file` (https://platform.openai.com/docs/guides/pdf-files), both as data
 * URLs like a user's files; text files as `input_text`. Audio has no place in that list (the
 * Responses input takes no audio) and other files no documented one: each is named in a note,
 * so one odd file does not fail the whole request.
 */
import type { ToolContentOutput } from '@parlance/protocol';
import type { JsonObject } from '../shared/json.ts';
import { decodeBase64Text, isBase64, omittedNote } from '../shared/tool-content.ts';

export function responsesToolContent(output: ToolContentOutput): JsonObject[] | string {
  const items: JsonObject[] = [];
  for (const part of output.content) {
    if (part.type === 'text') {
      if (part.text !== '') items.push({ type: 'input_text', text: part.text });
      continue;
    }
    const dataUrl = `data:${part.mediaType};base64,${part.data}`;
    if (!isBase64(part.data)) items.push({ type: 'input_text', text: omittedNote(part, 'its data is not base64') });
    else if (part.mediaType.startsWith('image/')) items.push({ type: 'input_image', image_url: dataUrl, detail: 'auto' });
    else if (part.mediaType.startsWith('text/')) items.push({ type: 'input_text', text: decodeBase64Text(part.data) });
    else if (part.mediaType.split(';')[0]!.trim() === 'application/pdf') items.push({ type: 'input_file', filename: part.filename ?? 'file.pdf', file_data: dataUrl });
    else items.push({ type: 'input_text', text: omittedNote(part, 'the Responses API takes images, PDFs and text in tool output') });
  }
  // An empty list says nothing: the empty string is the output of a tool that returned nothing.
  return items.length > 0 ? items : '';
}
