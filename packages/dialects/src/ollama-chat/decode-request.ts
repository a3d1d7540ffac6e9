/**
 * Ollama ChatRequest -> ModelRequest: the inverse of ./encode.ts.
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 *
 * - `system` messages -> `system`; `user` (with base64 `images`) and `assistant` (with
 *   `thinking` and `tool_calls`, arguments as objects) messages; `tool` messages -> results.
 *   Ollama documents `tool_name` as optional and calls carry no id, so clients differ: the AI
 *   SDK's provider sends `tool_call_id` (and `id` on its calls), LangChain's ChatOllama sends
 *   neither. A result is paired with the earliest unanswered call by id, else by name, else by
 *   position; a result with no unanswered call left is a 400 (never a synthetic result).
 * - `options.num_predict` / `temperature` / `top_p` / `stop`, `think` (a boolean or a level),
 *   `format` (a JSON schema), function `tools` map to their fields. Ollama streams unless
 *   `stream: false`. Everything else (`keep_alive`, other `options`, `format: "json"` ...)
 *   stays in `extra` (`options` whole, as the encoder merges shallowly).
 */
import type { Message, ModelRequest, Part, ReasoningEffort } from '@parlance/protocol';
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

const KNOWN = ['model', 'messages', 'tools', 'think', 'format', 'options', 'stream'];
const OPTIONS_KNOWN = ['num_predict', 'temperature', 'top_p', 'stop'];
const LEVELS: Record<string, ReasoningEffort> = { low: 'low', medium: 'medium', high: 'high' };

/** Ollama images are base64 without a media type; the magic bytes tell which. */
function imageType(data: string): string {
  if (data.startsWith('iVBOR')) return 'image/png';
  if (data.startsWith('/9j/')) return 'image/jpeg';
  if (data.startsWith('R0lG')) return 'image/gif';
  if (data.startsWith('UklG')) return 'image/webp';
  return 'image/png';
}

/** The unanswered calls so far, in the order they were made. */
type OpenCalls = { id: string; name: string }[];

/** The call a `tool` message answers: by `tool_call_id`, else by `tool_name` (or `name`), else the earliest unanswered. */
function pairResult(message: JsonObject, open: OpenCalls): { id: string; name: string } | undefined {
  const byId = typeof message.tool_call_id === 'string' ? open.findIndex((call) => call.id === message.tool_call_id) : -1;
  const name = typeof message.tool_name === 'string' ? message.tool_name : typeof message.name === 'string' ? message.name : undefined;
  const byName = byId < 0 && name !== undefined ? open.findIndex((call) => call.name === name) : -1;
  if (byId >= 0) return open.splice(byId, 1)[0];
  return open.splice(Math.max(byName, 0), 1)[0];
}

function assistantParts(message: JsonObject, path: Path, open: OpenCalls, counter: { n: number }): Part[] {
  const parts: Part[] = [];
  if (typeof message.thinking === 'string' && message.thinking !== '') parts.push({ type: 'reasoning', text: message.thinking });
  const content = message.content === undefined || message.content === null ? '' : stringAt(message.content, [...path, 'content']);
  if (content !== '') parts.push({ type: 'text', text: content });
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    arrayAt(message.tool_calls, [...path, 'tool_calls']).forEach((raw, i) => {
      const at = [...path, 'tool_calls', i];
      const fn = objectAt(objectAt(raw, at).function, [...at, 'function']);
      const name = stringAt(fn.name, [...at, 'function', 'name']);
      const given = (raw as JsonObject).id;
      const id = typeof given === 'string' && given !== '' ? given : `call_${counter.n++}`;
      open.push({ id, name });
      parts.push({ type: 'tool-call', id, name, input: isObject(fn.arguments) ? fn.arguments : {} });
    });
  }
  return parts;
}

export function decodeOllamaRequest(input: unknown, options: RequestDecodeOptions = {}): DecodedRequest {
  const body = objectAt(input, []);
  const model = modelOf(body, options);
  const system: string[] = [];
  const messages: Message[] = [];
  const open: OpenCalls = [];
  const counter = { n: 0 };
  arrayAt(body.messages, ['messages']).forEach((raw, index) => {
    const path = ['messages', index];
    const message = objectAt(raw, path);
    const id = `msg_${index}`;
    const content = message.content === undefined || message.content === null ? '' : stringAt(message.content, [...path, 'content']);
    switch (message.role) {
      case 'system':
        system.push(content);
        return;
      case 'user': {
        const parts: Part[] = [];
        if (content !== '') parts.push({ type: 'text', text: content });
        if (message.images !== undefined && message.images !== null) {
          arrayAt(message.images, [...path, 'images']).forEach((image, i) => {
            const data = base64At(image, [...path, 'images', i]);
            parts.push({ type: 'file', mediaType: imageType(data), data });
          });
        }
        messages.push({ id, role: 'user', parts });
        return;
      }
      case 'assistant':
        messages.push({ id, role: 'assistant', parts: assistantParts(message, path, open, counter) });
        return;
      case 'tool': {
        const call = pairResult(message, open);
        if (!call) invalid('This tool result answers no tool call: every earlier call already has its result', path);
        messages.push({ id, role: 'tool', parts: [{ type: 'tool-result', toolCallId: call.id, name: call.name, output: content }] });
        return;
      }
      default:
        invalid(`Unknown message role "${String(message.role)}"`, [...path, 'role']);
    }
  });

  const request: ModelRequest = { model, messages };
  if (system.length > 0) request.system = system.join('\n\n');
  const extra = rest(body, KNOWN) ?? {};
  const decodedTools = decodeToolList(body.tools, (tool) => (isObject(tool.function) ? tool.function : undefined), 'parameters', (i) => ['tools', i, 'function']);
  if (decodedTools.keep) extra.tools = body.tools;
  else if (decodedTools.tools) request.tools = decodedTools.tools;
  if (typeof body.think === 'boolean') request.thinking = body.think ? {} : false;
  else if (typeof body.think === 'string' && LEVELS[body.think]) request.thinking = { effort: LEVELS[body.think]! };
  if (isObject(body.format)) request.output = { type: 'json', schema: body.format, strict: false };
  else if (body.format !== undefined) extra.format = body.format;
  if (body.options !== undefined && body.options !== null) {
    const opts = objectAt(body.options, ['options']);
    assignDefined(request, {
      maxOutputTokens: numberAt(opts.num_predict, ['options', 'num_predict']),
      temperature: numberAt(opts.temperature, ['options', 'temperature']),
      topP: numberAt(opts.top_p, ['options', 'top_p']),
      stop: stopList(opts.stop, ['options', 'stop']),
    });
    if (Object.keys(opts).some((key) => !OPTIONS_KNOWN.includes(key))) extra.options = opts;
  }
  if (Object.keys(extra).length > 0) request.extra = extra;
  return { request, stream: body.stream !== false };
}
