/**
 * Responses API request body -> ModelRequest: the inverse of ./encode.ts.
 * https://platform.openai.com/docs/api-reference/responses/create
 *
 * - `instructions` and system/developer messages -> `system`.
 * - `input` (a string, or items): messages (easy or typed; `input_text`, `input_image`,
 *   `input_file`, `output_text`, `refusal`), `function_call` (its item id kept in this
 *   dialect's providerState), `function_call_output` (with `input_image` / `input_file` data
 *   URLs in its output: a content output, so the files stay media), and `reasoning` items whose summary,
 *   raw content and `encrypted_content` become reasoning parts that go back as the same item.
 *   Consecutive assistant items form one assistant message.
 * - `max_output_tokens`, `temperature`, `top_p`, `reasoning.effort`, `text.format`
 *   (json_schema), `prompt_cache_key`, function `tools`, `tool_choice` map to their fields.
 * - Everything else (`store`, `include`, `metadata`, `truncation`, a `reasoning` or `text`
 *   object with more than the protocol knows, non-function tools ...) stays in `extra`.
 *   Items only the server could resolve (`item_reference`, `previous_response_id`'s items)
 *   come from `options.items` / `options.previousMessages` (a gateway with a store resolves
 *   them first); without them they are refused.
 */
import type { Message, ModelRequest, Part, ReasoningEffort, StructuredOutput, ToolChoice, ToolContentOutput, ToolContentPart } from '@parlance/protocol';
import { definedFields, isObject, type JsonObject } from '../shared/json.ts';
import { decodedToolOutput, parseBase64DataUrl } from '../shared/tool-content.ts';
import {
  arrayAt,
  assignDefined,
  decodeToolList,
  fileFromUrl,
  invalid,
  modelOf,
  numberAt,
  objectAt,
  parseArguments,
  rest,
  stringAt,
  type DecodedRequest,
  type Path,
  type RequestDecodeOptions,
} from '../shared/request-decoding.ts';

const DIALECT = 'openai_responses';

const KNOWN = ['model', 'previous_response_id', 'input', 'instructions', 'max_output_tokens', 'temperature', 'top_p', 'reasoning', 'text', 'prompt_cache_key', 'tools', 'tool_choice', 'stream'];

const EFFORTS = new Set(['minimal', 'low', 'medium', 'high', 'xhigh']);

function state(fields: JsonObject): JsonObject {
  return { [DIALECT]: definedFields(fields) };
}

function inputParts(content: unknown, path: Path): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return arrayAt(content, path).map((raw, i): Part => {
    const at = [...path, i];
    const item = objectAt(raw, at);
    switch (item.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: stringAt(item.text, [...at, 'text']) };
      case 'input_image':
        if (typeof item.image_url !== 'string') invalid('Only images by URL or data URL can be sent through a gateway, not file ids', [...at, 'image_url']);
        return fileFromUrl(item.image_url, undefined, undefined, [...at, 'image_url']);
      case 'input_file': {
        const filename = typeof item.filename === 'string' ? item.filename : undefined;
        if (typeof item.file_data === 'string') return fileFromUrl(item.file_data, 'application/pdf', filename, [...at, 'file_data']);
        if (typeof item.file_url === 'string') return fileFromUrl(item.file_url, 'application/pdf', filename);
        return invalid('Only inline files (`file_data`) or `file_url` can be sent through a gateway, not file ids', at);
      }
      default:
        return invalid(`Unknown input content part type "${String(item.type)}"`, [...at, 'type']);
    }
  });
}

function assistantParts(item: JsonObject, path: Path): Part[] {
  const itemId = typeof item.id === 'string' ? item.id : undefined;
  const phase = typeof item.phase === 'string' ? item.phase : undefined;
  const providerState = itemId !== undefined || phase !== undefined ? state({ itemId, phase }) : undefined;
  const content = item.content;
  const parts: Part[] = [];
  const entries = typeof content === 'string' ? [{ type: 'output_text', text: content }] : arrayAt(content, [...path, 'content']);
  for (const [i, raw] of entries.entries()) {
    const entry = objectAt(raw, [...path, 'content', i]);
    if (entry.type === 'refusal') {
      parts.push({ type: 'text', text: stringAt(entry.refusal, [...path, 'content', i, 'refusal']), providerState: state({ itemId, refusal: true }) });
      continue;
    }
    if (entry.type !== 'output_text' && entry.type !== 'input_text') invalid(`Unknown assistant content type "${String(entry.type)}"`, [...path, 'content', i, 'type']);
    const part: Part = { type: 'text', text: stringAt(entry.text, [...path, 'content', i, 'text']) };
    if (providerState) part.providerState = providerState;
    parts.push(part);
  }
  return parts;
}

function reasoningParts(item: JsonObject, path: Path): Part[] {
  const itemId = typeof item.id === 'string' ? item.id : 'rs_parlance';
  const encrypted = typeof item.encrypted_content === 'string' ? item.encrypted_content : undefined;
  const summaries = item.summary === undefined ? [] : arrayAt(item.summary, [...path, 'summary']);
  const contents = item.content === undefined || item.content === null ? [] : arrayAt(item.content, [...path, 'content']);
  const parts: Part[] = [];
  const push = (text: string, kind: string | undefined) => {
    const part: Part = { type: 'reasoning', text, providerState: state({ itemId, encryptedContent: encrypted, kind }) };
    if (encrypted !== undefined && parts.length === 0) part.signature = encrypted;
    parts.push(part);
  };
  for (const [i, raw] of summaries.entries()) push(stringAt(objectAt(raw, [...path, 'summary', i]).text, [...path, 'summary', i, 'text']), undefined);
  for (const [i, raw] of contents.entries()) push(stringAt(objectAt(raw, [...path, 'content', i]).text, [...path, 'content', i, 'text']), 'content');
  if (parts.length === 0) push('', undefined);
  return parts;
}

/**
 * A tool output item's `output`: its text, or with `input_image` / `input_file` entries carrying
 * base64 data URLs a content output, so the files go on as media, not as JSON text. Other
 * entries (file ids, remote URLs) stay JSON text.
 */
function outputText(output: unknown, path: Path): string | ToolContentOutput {
  if (typeof output === 'string') return output;
  const parts = arrayAt(output, path).map((raw, i): ToolContentPart => {
    const entry = objectAt(raw, [...path, i]);
    if (entry.type === 'input_text' || entry.type === 'output_text') return { type: 'text', text: stringAt(entry.text, [...path, i, 'text']) };
    const source = entry.type === 'input_image' ? entry.image_url : entry.type === 'input_file' ? entry.file_data : undefined;
    const file = typeof source === 'string' ? parseBase64DataUrl(source) : undefined;
    if (file) return typeof entry.filename === 'string' ? { type: 'file', ...file, filename: entry.filename } : { type: 'file', ...file };
    return { type: 'text', text: JSON.stringify(entry) };
  });
  return decodedToolOutput(parts);
}

function decodeInput(body: JsonObject, system: string[], options: RequestDecodeOptions): Message[] {
  const messages: Message[] = [];
  if (typeof body.input === 'string') return [{ id: 'msg_0', role: 'user', parts: [{ type: 'text', text: body.input }] }];
  const names = new Map<string, string>();
  const assistant = (): Message => {
    const last = messages[messages.length - 1];
    if (last && last.role === 'assistant') return last;
    const message: Message = { id: `msg_${messages.length}`, role: 'assistant', parts: [] };
    messages.push(message);
    return message;
  };
  for (const [index, raw] of arrayAt(body.input, ['input']).entries()) {
    const path = ['input', index];
    const item = objectAt(raw, path);
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        const role = item.role;
        if (role === 'system' || role === 'developer') {
          system.push(inputParts(item.content, [...path, 'content']).map((p) => (p.type === 'text' ? p.text : '')).join(''));
        } else if (role === 'user') messages.push({ id: `msg_${messages.length}`, role: 'user', parts: inputParts(item.content, [...path, 'content']) });
        else if (role === 'assistant') assistant().parts.push(...assistantParts(item, path));
        else invalid(`Unknown message role "${String(role)}"`, [...path, 'role']);
        continue;
      }
      case 'reasoning':
        assistant().parts.push(...reasoningParts(item, path));
        continue;
      case 'function_call': {
        const id = stringAt(item.call_id, [...path, 'call_id']);
        const name = stringAt(item.name, [...path, 'name']);
        names.set(id, name);
        const part: Part = { type: 'tool-call', id, name, input: parseArguments(item.arguments, [...path, 'arguments']) };
        if (typeof item.id === 'string') part.providerState = state({ itemId: item.id });
        assistant().parts.push(part);
        continue;
      }
      case 'function_call_output': {
        const id = stringAt(item.call_id, [...path, 'call_id']);
        const output = outputText(item.output, [...path, 'output']);
        messages.push({ id: `msg_${messages.length}`, role: 'tool', parts: [{ type: 'tool-result', toolCallId: id, name: names.get(id) ?? '', output }] });
        continue;
      }
      case 'item_reference': {
        const found = typeof item.id === 'string' ? options.items?.get(item.id) : undefined;
        if (!found) return invalid('Item references need the provider-side conversation; send the items themselves', [...path, 'type']);
        for (const part of found.parts) if (part.type === 'tool-call') names.set(part.id, part.name);
        if (found.role === 'assistant') assistant().parts.push(...found.parts);
        else messages.push({ id: `msg_${messages.length}`, role: found.role, parts: [...found.parts] });
        continue;
      }
      default:
        invalid(`Input items of type "${String(type)}" are not supported through a gateway`, [...path, 'type']);
    }
  }
  return messages;
}


function toolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  const choice = objectAt(value, ['tool_choice']);
  if (choice.type !== 'function') invalid(`tool_choice of type "${String(choice.type)}" is not supported through a gateway`, ['tool_choice', 'type']);
  return { type: 'tool', name: stringAt(choice.name, ['tool_choice', 'name']) };
}

export function decodeResponsesRequest(input: unknown, options: RequestDecodeOptions = {}): DecodedRequest {
  const body = objectAt(input, []);
  const previous = body.previous_response_id !== undefined && body.previous_response_id !== null;
  if (previous && !options.previousMessages) {
    invalid('previous_response_id needs the provider-side conversation; send the whole input with store: false', ['previous_response_id']);
  }
  const model = modelOf(body, options);
  const system: string[] = [];
  if (body.instructions !== undefined && body.instructions !== null) system.push(stringAt(body.instructions, ['instructions']));
  // The earlier turns come first; their instructions are not carried over (as OpenAI documents).
  const messages = [...(previous ? (options.previousMessages ?? []) : []), ...decodeInput(body, system, options)];
  const request: ModelRequest = { model, messages };
  if (system.length > 0) request.system = system.join('\n\n');
  const decodedTools = decodeToolList(body.tools, (tool) => (tool.type === 'function' ? tool : undefined), 'parameters', (i) => ['tools', i]);
  const extra = rest(body, decodedTools.keep ? KNOWN.filter((key) => key !== 'tools') : KNOWN) ?? {};
  assignDefined(request, {
    tools: decodedTools.tools,
    toolChoice: toolChoice(body.tool_choice),
    maxOutputTokens: numberAt(body.max_output_tokens, ['max_output_tokens']),
    temperature: numberAt(body.temperature, ['temperature']),
    topP: numberAt(body.top_p, ['top_p']),
  });
  if (body.reasoning !== undefined && body.reasoning !== null) {
    const reasoning = objectAt(body.reasoning, ['reasoning']);
    const effort = reasoning.effort;
    if (effort === 'none') request.thinking = false;
    else if (typeof effort === 'string' && EFFORTS.has(effort)) request.thinking = { effort: effort as ReasoningEffort };
    else if (effort === undefined || effort === null) request.thinking = {};
    // A summary setting other than the one the encoder sends, or anything more, travels as given.
    const plain = Object.keys(reasoning).every((key) => key === 'effort' || (key === 'summary' && reasoning.summary === 'auto'));
    if (!plain || request.thinking === undefined) extra.reasoning = reasoning;
  }
  if (body.text !== undefined && body.text !== null) {
    const text = objectAt(body.text, ['text']);
    const format = isObject(text.format) ? text.format : undefined;
    if (format?.type === 'json_schema' && isObject(format.schema)) {
      request.output = assignDefined<StructuredOutput>(
        { type: 'json', schema: format.schema },
        {
          name: typeof format.name === 'string' ? format.name : undefined,
          description: typeof format.description === 'string' ? format.description : undefined,
          strict: typeof format.strict === 'boolean' ? format.strict : false,
        },
      );
    }
    if (Object.keys(text).some((key) => key !== 'format') || (format !== undefined && request.output === undefined)) extra.text = body.text;
  }
  if (typeof body.prompt_cache_key === 'string') request.cache = { key: body.prompt_cache_key, breakpoints: false };
  if (Object.keys(extra).length > 0) request.extra = extra;
  return { request, stream: body.stream === true };
}
