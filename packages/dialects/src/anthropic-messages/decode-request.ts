/**
 * Messages API request body -> ModelRequest: the inverse of ./encode.ts.
 * https://docs.anthropic.com/en/api/messages
 *
 * - `system` (a string or text blocks): the first block -> `system`, later ones -> system
 *   messages (the encoder sends one block per system text).
 * - Blocks: `text`; `image` / `document` (base64, URL or plain text) -> file parts;
 *   `tool_use` -> tool calls (`caller` kept); `tool_result` -> tool results (`is_error`,
 *   text blocks joined; with image or document blocks a content output, so the files stay
 *   media); `thinking` -> reasoning with its signature, `redacted_thinking` ->
 *   redacted reasoning holding its data, both in this dialect's providerState so they go
 *   back byte for byte. Other block types (server tools, containers) are refused.
 * - `max_tokens`, `temperature`, `top_p`, `stop_sequences`, `thinking` (enabled with a
 *   budget, or disabled), `output_config.format` (json_schema), custom `tools`,
 *   `tool_choice`, and `cache_control` marks (-> `cache` with their ttl) map to their fields.
 * - Everything else (`metadata`, `top_k`, `service_tier`, adaptive thinking, server tools,
 *   `disable_parallel_tool_use` ...) stays in `extra`.
 */
import type { CacheSetting, Message, ModelRequest, Part, ToolChoice, ToolContentOutput, ToolContentPart } from '@parlance/protocol';
import { isObject, type JsonObject } from '../shared/json.ts';
import {
  base64At,
  arrayAt,
  assignDefined,
  decodeToolList,
  invalid,
  modelOf,
  numberAt,
  objectAt,
  rest,
  stopList,
  stringAt,
  type DecodedRequest,
  type Path,
  type RequestDecodeOptions,
} from '../shared/request-decoding.ts';
import { DIALECT_KEY } from './mappings.ts';
import { decodedToolOutput } from '../shared/tool-content.ts';

const KNOWN = ['model', 'messages', 'system', 'max_tokens', 'temperature', 'top_p', 'stop_sequences', 'thinking', 'output_config', 'tools', 'tool_choice', 'stream'];

interface Context {
  names: Map<string, string>;
  cache?: CacheSetting;
}

function noteCache(block: JsonObject, context: Context): void {
  const control = block.cache_control;
  if (!isObject(control)) return;
  context.cache ??= { breakpoints: true };
  if (control.ttl === '5m' || control.ttl === '1h') context.cache.ttl = control.ttl;
}

function blocksOf(content: unknown, path: Path): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return arrayAt(content, path).map((raw, i) => objectAt(raw, [...path, i]));
}

function sourcePart(block: JsonObject, path: Path): Part {
  const source = objectAt(block.source, [...path, 'source']);
  const title = typeof block.title === 'string' ? block.title : undefined;
  let part: Part;
  if (source.type === 'base64') {
    part = { type: 'file', mediaType: stringAt(source.media_type, [...path, 'source', 'media_type']), data: base64At(source.data, [...path, 'source', 'data']) };
  } else if (source.type === 'url') {
    part = { type: 'file', mediaType: block.type === 'document' ? 'application/pdf' : 'image/*', url: stringAt(source.url, [...path, 'source', 'url']) };
  } else if (source.type === 'text') {
    const bytes = new TextEncoder().encode(stringAt(source.data, [...path, 'source', 'data']));
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    part = { type: 'file', mediaType: 'text/plain', data: btoa(binary) };
  } else return invalid(`Sources of type "${String(source.type)}" are not supported through a gateway`, [...path, 'source', 'type']);
  if (title !== undefined) part.filename = title;
  return part;
}

/**
 * A `tool_result`'s content: its text, or with image and document blocks (base64 or text
 * sources) a content output, so their files go on as media, not as JSON text. Other blocks
 * (URL sources, search results) stay JSON text.
 */
function resultOutput(content: unknown, path: Path): string | ToolContentOutput {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  const parts = blocksOf(content, path).map((block, i): ToolContentPart => {
    if (block.type === 'text') return { type: 'text', text: stringAt(block.text, [...path, i, 'text']) };
    if (block.type === 'image' || block.type === 'document') {
      const file = sourcePart(block, [...path, i]);
      if (file.type === 'file' && file.data !== undefined) {
        return file.filename === undefined ? { type: 'file', mediaType: file.mediaType, data: file.data } : { type: 'file', mediaType: file.mediaType, data: file.data, filename: file.filename };
      }
    }
    return { type: 'text', text: JSON.stringify(block) };
  });
  return decodedToolOutput(parts);
}

function decodeBlock(block: JsonObject, path: Path, assistant: boolean, context: Context): Part {
  noteCache(block, context);
  switch (block.type) {
    case 'text':
      return { type: 'text', text: stringAt(block.text, [...path, 'text']) };
    case 'image':
    case 'document':
      return sourcePart(block, path);
    case 'thinking': {
      const signature = stringAt(block.signature, [...path, 'signature']);
      return { type: 'reasoning', text: stringAt(block.thinking, [...path, 'thinking']), signature, providerState: { [DIALECT_KEY]: { signature } } };
    }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: true, providerState: { [DIALECT_KEY]: { redactedData: stringAt(block.data, [...path, 'data']) } } };
    case 'tool_use': {
      if (!assistant) invalid('tool_use blocks belong in assistant turns', [...path, 'type']);
      const id = stringAt(block.id, [...path, 'id']);
      const name = stringAt(block.name, [...path, 'name']);
      context.names.set(id, name);
      const part: Part = { type: 'tool-call', id, name, input: isObject(block.input) ? block.input : {} };
      if (block.caller !== undefined && !(isObject(block.caller) && block.caller.type === 'direct')) part.providerState = { [DIALECT_KEY]: { caller: block.caller } };
      return part;
    }
    case 'tool_result': {
      const id = stringAt(block.tool_use_id, [...path, 'tool_use_id']);
      const part: Part = { type: 'tool-result', toolCallId: id, name: context.names.get(id) ?? '', output: resultOutput(block.content, [...path, 'content']) };
      if (block.is_error === true) part.isError = true;
      return part;
    }
    default:
      return invalid(`Content blocks of type "${String(block.type)}" are not supported through a gateway`, [...path, 'type']);
  }
}


function toolChoice(value: unknown, extra: JsonObject): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  const choice = objectAt(value, ['tool_choice']);
  if (choice.disable_parallel_tool_use !== undefined) extra.tool_choice = choice;
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'tool', name: stringAt(choice.name, ['tool_choice', 'name']) };
    default:
      return invalid(`Unknown tool_choice type "${String(choice.type)}"`, ['tool_choice', 'type']);
  }
}

export function decodeAnthropicRequest(input: unknown, options: RequestDecodeOptions = {}): DecodedRequest {
  const body = objectAt(input, []);
  const model = modelOf(body, options);
  const context: Context = { names: new Map() };
  const messages: Message[] = [];
  let system: string | undefined;
  if (body.system !== undefined && body.system !== null) {
    blocksOf(body.system, ['system']).forEach((block, i) => {
      noteCache(block, context);
      const text = stringAt(block.text, ['system', i, 'text']);
      if (i === 0) system = text;
      else messages.push({ id: `system_${i}`, role: 'system', parts: [{ type: 'text', text }] });
    });
  }
  arrayAt(body.messages, ['messages']).forEach((raw, index) => {
    const path = ['messages', index];
    const message = objectAt(raw, path);
    if (message.role !== 'user' && message.role !== 'assistant') invalid(`Unknown message role "${String(message.role)}"`, [...path, 'role']);
    const assistant = message.role === 'assistant';
    const parts = blocksOf(message.content, [...path, 'content']).map((block, i) => decodeBlock(block, [...path, 'content', i], assistant, context));
    // Tool results open a tool message, as the protocol keeps them apart from the user's words.
    const results = parts.filter((part) => part.type === 'tool-result');
    const others = parts.filter((part) => part.type !== 'tool-result');
    if (results.length > 0) messages.push({ id: `msg_${index}_results`, role: 'tool', parts: results });
    if (others.length > 0 || results.length === 0) messages.push({ id: `msg_${index}`, role: assistant ? 'assistant' : 'user', parts: others });
  });

  const request: ModelRequest = { model, messages };
  if (system !== undefined) request.system = system;
  // Server tools (`type: 'web_search_20250305'`, ...) have no protocol form: the list then travels in `extra`.
  const decodedTools = decodeToolList(body.tools, (tool) => (tool.type === undefined || tool.type === 'custom' ? tool : undefined), 'input_schema', (i) => ['tools', i]);
  if (Array.isArray(body.tools)) for (const tool of body.tools) if (isObject(tool)) noteCache(tool, context);
  const extra = rest(body, decodedTools.keep ? KNOWN.filter((key) => key !== 'tools') : KNOWN) ?? {};
  assignDefined(request, {
    tools: decodedTools.tools,
    toolChoice: toolChoice(body.tool_choice, extra),
    maxOutputTokens: numberAt(body.max_tokens, ['max_tokens']),
    temperature: numberAt(body.temperature, ['temperature']),
    topP: numberAt(body.top_p, ['top_p']),
    stop: stopList(body.stop_sequences, ['stop_sequences']),
    cache: context.cache,
  });
  if (body.thinking !== undefined && body.thinking !== null) {
    const thinking = objectAt(body.thinking, ['thinking']);
    if (thinking.type === 'disabled') request.thinking = false;
    else if (thinking.type === 'enabled') request.thinking = { budgetTokens: numberAt(thinking.budget_tokens, ['thinking', 'budget_tokens']) ?? 1024 };
    else extra.thinking = body.thinking;
  }
  if (body.output_config !== undefined && body.output_config !== null) {
    const config = objectAt(body.output_config, ['output_config']);
    const format = isObject(config.format) ? config.format : undefined;
    if (format?.type === 'json_schema' && isObject(format.schema)) request.output = { type: 'json', schema: format.schema, strict: false };
    if (Object.keys(config).some((key) => key !== 'format') || (format !== undefined && request.output === undefined)) extra.output_config = body.output_config;
  }
  if (Object.keys(extra).length > 0) request.extra = extra;
  return { request, stream: body.stream === true };
}
