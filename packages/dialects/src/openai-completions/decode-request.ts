/**
 * Chat Completions request body -> ModelRequest: the inverse of ./encode.ts.
 * https://platform.openai.com/docs/api-reference/chat/create
 *
 * - `system` / `developer` messages -> `system` (joined with a blank line, as encoded).
 * - user content: text; `image_url` (URL or data URL), `input_audio`, `file` (`file_data`)
 *   -> file parts.
 * - assistant: `content` (string or text parts), `refusal` (a text part marked as such),
 *   `tool_calls` (arguments parsed), `reasoning_content` / `reasoning_details` -> reasoning
 *   kept in this dialect's providerState so they go back the same way.
 * - `tool` messages -> tool results named after their call.
 * - `max_completion_tokens` (or the deprecated `max_tokens`), `temperature`, `top_p`, `stop`,
 *   `reasoning_effort` ('none' -> thinking off), `response_format` json_schema,
 *   `prompt_cache_key`, function `tools` and `tool_choice` map to their fields; `stream` and
 *   `stream_options` are the call's own business. Everything else (n, seed, user,
 *   metadata, logprobs, penalties, non-function tools ...) stays in `extra`.
 */
import type { Message, ModelRequest, Part, ReasoningEffort, StructuredOutput, ToolChoice } from '@parlance/protocol';
import { isObject, type JsonObject } from '../shared/json.ts';
import {
  base64At,
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
  stopList,
  stringAt,
  type DecodedRequest,
  type Path,
  type RequestDecodeOptions,
} from '../shared/request-decoding.ts';
import { DIALECT_ID } from './mappings.ts';

const KNOWN = [
  'model',
  'messages',
  'tools',
  'tool_choice',
  'max_completion_tokens',
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'reasoning_effort',
  'response_format',
  'prompt_cache_key',
  'stream',
  'stream_options',
];

const EFFORTS = new Set(['minimal', 'low', 'medium', 'high', 'xhigh']);

const AUDIO_TYPES: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg' };

/** Text of a string or a list of text parts. */
function textOf(content: unknown, path: Path): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return arrayAt(content, path)
    .map((part, i) => {
      const item = objectAt(part, [...path, i]);
      if (item.type === 'text') return stringAt(item.text, [...path, i, 'text']);
      if (item.type === 'refusal') return stringAt(item.refusal, [...path, i, 'refusal']);
      return invalid(`${[...path, i].join('.')}: only text parts are allowed here`, [...path, i, 'type']);
    })
    .join('');
}

function userParts(content: unknown, path: Path): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return arrayAt(content, path).map((raw, i): Part => {
    const at = [...path, i];
    const item = objectAt(raw, at);
    switch (item.type) {
      case 'text':
        return { type: 'text', text: stringAt(item.text, [...at, 'text']) };
      case 'image_url': {
        const image = objectAt(item.image_url, [...at, 'image_url']);
        return fileFromUrl(stringAt(image.url, [...at, 'image_url', 'url']), undefined, undefined, [...at, 'image_url', 'url']);
      }
      case 'input_audio': {
        const audio = objectAt(item.input_audio, [...at, 'input_audio']);
        const format = stringAt(audio.format, [...at, 'input_audio', 'format']);
        return { type: 'file', mediaType: AUDIO_TYPES[format] ?? `audio/${format}`, data: base64At(audio.data, [...at, 'input_audio', 'data']) };
      }
      case 'file': {
        const file = objectAt(item.file, [...at, 'file']);
        const filename = typeof file.filename === 'string' ? file.filename : undefined;
        if (typeof file.file_data !== 'string') invalid('Only inline files (`file_data`) can be sent through a gateway, not file ids', [...at, 'file']);
        return fileFromUrl(file.file_data, undefined, filename, [...at, 'file', 'file_data']);
      }
      default:
        return invalid(`Unknown user content part type "${String(item.type)}"`, [...at, 'type']);
    }
  });
}

function assistantParts(message: JsonObject, path: Path, names: Map<string, string>): Part[] {
  const parts: Part[] = [];
  const details = Array.isArray(message.reasoning_details) ? message.reasoning_details.filter(isObject) : [];
  if (typeof message.reasoning_content === 'string' || details.length > 0) {
    const state: JsonObject = {};
    if (typeof message.reasoning_content === 'string') state.field = 'reasoning_content';
    if (details.length > 0) state.reasoningDetails = details;
    parts.push({ type: 'reasoning', text: typeof message.reasoning_content === 'string' ? message.reasoning_content : '', providerState: { [DIALECT_ID]: state } });
  }
  const text = textOf(message.content, [...path, 'content']);
  if (text !== '') parts.push({ type: 'text', text });
  if (typeof message.refusal === 'string' && message.refusal !== '') {
    parts.push({ type: 'text', text: message.refusal, providerState: { [DIALECT_ID]: { refusal: true } } });
  }
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    arrayAt(message.tool_calls, [...path, 'tool_calls']).forEach((raw, i) => {
      const at = [...path, 'tool_calls', i];
      const call = objectAt(raw, at);
      const fn = objectAt(call.function, [...at, 'function']);
      const id = stringAt(call.id, [...at, 'id']);
      const name = stringAt(fn.name, [...at, 'function', 'name']);
      names.set(id, name);
      parts.push({ type: 'tool-call', id, name, input: parseArguments(fn.arguments, [...at, 'function', 'arguments']) });
    });
  }
  return parts;
}


function toolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  const choice = objectAt(value, ['tool_choice']);
  const fn = objectAt(choice.function, ['tool_choice', 'function']);
  return { type: 'tool', name: stringAt(fn.name, ['tool_choice', 'function', 'name']) };
}

export function decodeCompletionsRequest(input: unknown, options: RequestDecodeOptions = {}): DecodedRequest {
  const body = objectAt(input, []);
  const model = modelOf(body, options);
  const system: string[] = [];
  const messages: Message[] = [];
  const names = new Map<string, string>();
  arrayAt(body.messages, ['messages']).forEach((raw, index) => {
    const path = ['messages', index];
    const message = objectAt(raw, path);
    const role = message.role;
    const id = `msg_${index}`;
    if (role === 'system' || role === 'developer') system.push(textOf(message.content, [...path, 'content']));
    else if (role === 'user') messages.push({ id, role: 'user', parts: userParts(message.content, [...path, 'content']) });
    else if (role === 'assistant') messages.push({ id, role: 'assistant', parts: assistantParts(message, path, names) });
    else if (role === 'tool') {
      const callId = stringAt(message.tool_call_id, [...path, 'tool_call_id']);
      const output = textOf(message.content, [...path, 'content']);
      messages.push({ id, role: 'tool', parts: [{ type: 'tool-result', toolCallId: callId, name: names.get(callId) ?? '', output }] });
    } else invalid(`Unknown message role "${String(role)}"`, [...path, 'role']);
  });

  const request: ModelRequest = { model, messages };
  if (system.length > 0) request.system = system.join('\n\n');
  const decodedTools = decodeToolList(body.tools, (tool) => (tool.type === 'function' && isObject(tool.function) ? tool.function : undefined), 'parameters', (i) => ['tools', i, 'function']);
  const extra = rest(body, decodedTools.keep ? KNOWN.filter((key) => key !== 'tools') : KNOWN) ?? {};
  assignDefined(request, {
    tools: decodedTools.tools,
    toolChoice: toolChoice(body.tool_choice),
    maxOutputTokens: numberAt(body.max_completion_tokens, ['max_completion_tokens']) ?? numberAt(body.max_tokens, ['max_tokens']),
    temperature: numberAt(body.temperature, ['temperature']),
    topP: numberAt(body.top_p, ['top_p']),
    stop: stopList(body.stop, ['stop']),
  });
  if (typeof body.reasoning_effort === 'string') {
    if (body.reasoning_effort === 'none') request.thinking = false;
    else if (EFFORTS.has(body.reasoning_effort)) request.thinking = { effort: body.reasoning_effort as ReasoningEffort };
    else extra.reasoning_effort = body.reasoning_effort;
  }
  if (body.response_format !== undefined && body.response_format !== null) {
    const format = objectAt(body.response_format, ['response_format']);
    const schema = isObject(format.json_schema) ? format.json_schema : undefined;
    if (format.type === 'json_schema' && schema && isObject(schema.schema)) {
      request.output = assignDefined<StructuredOutput>(
        { type: 'json', schema: schema.schema },
        {
          name: typeof schema.name === 'string' ? schema.name : undefined,
          description: typeof schema.description === 'string' ? schema.description : undefined,
          strict: typeof schema.strict === 'boolean' ? schema.strict : false,
        },
      );
    } else extra.response_format = body.response_format;
  }
  if (typeof body.prompt_cache_key === 'string') request.cache = { key: body.prompt_cache_key, breakpoints: false };
  if (Object.keys(extra).length > 0) request.extra = extra;
  return { request, stream: body.stream === true };
}
