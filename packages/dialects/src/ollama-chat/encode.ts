/**
 * ModelRequest -> Ollama ChatRequest.
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 *
 * Handoff rule (shared by every dialect):
 * - providerState of every dialect is ignored: Ollama keeps no round-trip state.
 * - Reasoning text of any origin goes back in the assistant message's `thinking` field
 *   (Ollama accepts plain thinking text, no signature); empty or redacted reasoning is dropped.
 * - Provider-executed tool calls and results (another provider's server tools) are dropped.
 * - Ollama matches a result to its call by `tool_name`, so tool-call ids never reach the wire;
 *   a result whose call is not in the history is dropped.
 *
 * Not expressible, by decision:
 * - Images must be base64 (`images`): an http(s) URL cannot be sent (Ollama does not fetch
 *   URLs) and fails with ParlanceError `invalid_request` rather than being dropped, so the
 *   model never answers about an image it did not see. `text/*` files are inlined as text;
 *   other files fail the same way.
 * - `toolChoice`: Ollama has none. 'none' leaves the tools out, `{ type: 'tool', name }`
 *   offers only that tool, 'required' cannot be enforced and is ignored.
 * - `cache`: Ollama reuses its KV cache for a shared prefix by itself; no hint exists.
 * - `stop` goes in `options.stop`, `maxOutputTokens` in `options.num_predict`.
 * - A failed tool result (`isError`) is sent as `Error: <output>`: Ollama has no error flag.
 * - A content tool output's images go in the tool message's `images` (tool-content.ts).
 * - `extra` is merged last and shallow (`keep_alive`, `options`, ...): an `extra.options`
 *   replaces the options built here.
 */
import { ParlanceError, toolContentOf, type Message, type ModelRequest, type ReasoningEffort } from '@parlance/protocol';
import { inlineFile } from '../shared/inline-file.ts';
import { isObject, type JsonObject, toArgumentsObject } from '../shared/json.ts';
import { repairToolPairs } from '../shared/tool-pairs.ts';
import type { EncodeOptions } from '../types.ts';
import { summariesAsText } from '../shared/summary-parts.ts';
import { ollamaToolMessage } from './tool-content.ts';

type Json = JsonObject;


function decodeBase64Text(data: string, path: (string | number)[]): string {
  try {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  } catch (cause) {
    throw new ParlanceError('invalid_request', 'A text file part holds invalid base64 data.', { path, cause });
  }
}


function userMessage(message: Message, index: number): Json | undefined {
  const texts: string[] = [];
  const images: string[] = [];
  message.parts.forEach((given, p) => {
    if (given.type === 'text') {
      if (given.text !== '') texts.push(given.text);
      return;
    }
    if (given.type !== 'file') return;
    const path = ['messages', index, 'parts', p];
    const part = inlineFile(given, path);
    let data: string;
    let mediaType = part.mediaType;
    if (part.data !== undefined) data = part.data;
    else {
      const dataUrl = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(part.url);
      if (!dataUrl) {
        throw new ParlanceError('invalid_request', 'Ollama accepts images as base64 data only; this file is a URL. Download it and pass `data` instead.', { path });
      }
      data = dataUrl[2]!;
      mediaType = dataUrl[1] ?? mediaType;
    }
    if (mediaType.startsWith('image/')) images.push(data);
    else if (mediaType.startsWith('text/')) texts.push(decodeBase64Text(data, path));
    else throw new ParlanceError('invalid_request', `Ollama cannot take a ${mediaType} file: only images (base64) and text files.`, { path });
  });
  if (texts.length === 0 && images.length === 0) return undefined;
  const out: Json = { role: 'user', content: texts.join('\n') };
  if (images.length) out.images = images;
  return out;
}

function assistantMessage(message: Message): Json | undefined {
  let content = '';
  let thinking = '';
  const toolCalls: Json[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') content += part.text;
    else if (part.type === 'reasoning' && !part.redacted) thinking += part.text;
    else if (part.type === 'tool-call' && !part.providerExecuted) {
      toolCalls.push({ function: { name: part.name, arguments: toArgumentsObject(part.input) } });
    }
  }
  if (content === '' && thinking.trim() === '' && toolCalls.length === 0) return undefined;
  const out: Json = { role: 'assistant', content };
  if (thinking.trim() !== '') out.thinking = thinking;
  if (toolCalls.length) out.tool_calls = toolCalls;
  return out;
}

/**
 * `think`: a boolean, or a level for models that take one. gpt-oss takes low/medium/high
 * (and cannot switch thinking off: `false` is sent anyway and ignored by it); for other
 * models an effort or budget just turns thinking on.
 */
function think(request: ModelRequest): boolean | string | undefined {
  const thinking = request.thinking;
  if (thinking === undefined) return undefined;
  if (thinking === false) return false;
  if (/gpt-oss/i.test(request.model) && thinking.effort) {
    const levels: Record<ReasoningEffort, string> = { minimal: 'low', low: 'low', medium: 'medium', high: 'high', xhigh: 'high' };
    return levels[thinking.effort];
  }
  return true;
}

export function encodeOllamaRequest(original: ModelRequest, encodeOptions: EncodeOptions = {}): Record<string, unknown> {
  const request = summariesAsText(original);
  const system: string[] = request.system ? [request.system] : [];
  const messages: Json[] = [];
  const indexOf = new Map(request.messages.map((message, index) => [message, index]));
  repairToolPairs(request.messages).forEach((message, repaired) => {
    const index = indexOf.get(message) ?? repaired;
    if (message.role === 'system') {
      const text = message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      if (text) system.push(text);
      return;
    }
    if (message.role === 'assistant') {
      const out = assistantMessage(message);
      if (out) messages.push(out);
    } else if (message.role === 'user') {
      const out = userMessage(message, index);
      if (out) messages.push(out);
    }
    // Tool results (a `tool` message right after their calls: repairToolPairs) become one tool message each.
    for (const part of message.parts) {
      if (part.type !== 'tool-result' || part.providerExecuted) continue;
      const media = toolContentOf(part.output);
      if (media) {
        messages.push(ollamaToolMessage(media, part.name, part.isError));
        continue;
      }
      const content = typeof part.output === 'string' ? part.output : JSON.stringify(part.output ?? null);
      messages.push({ role: 'tool', content: part.isError ? `Error: ${content}` : content, tool_name: part.name });
    }
  });
  if (system.length) messages.unshift({ role: 'system', content: system.join('\n\n') });

  const body: Json = { model: request.model, messages, stream: encodeOptions.stream !== false };

  let tools = request.tools ?? [];
  const choice = request.toolChoice;
  if (choice === 'required' && tools.length > 0) encodeOptions.onWarning?.({ setting: 'toolChoice', message: "Ollama cannot force a tool call: toolChoice 'required' was not applied" });
  if (choice === 'none') tools = [];
  else if (typeof choice === 'object') tools = tools.filter((t) => t.name === choice.name);
  if (tools.length) {
    body.tools = tools.map((tool) => {
      const fn: Json = { name: tool.name, parameters: tool.inputSchema };
      if (tool.description) fn.description = tool.description;
      return { type: 'function', function: fn };
    });
  }

  const thinkValue = think(request);
  if (thinkValue !== undefined) body.think = thinkValue;
  // Structured output: `format` takes a JSON schema. https://ollama.com/blog/structured-outputs
  if (request.output) body.format = request.output.schema;

  // https://github.com/ollama/ollama/blob/main/docs/modelfile.mdx#valid-parameters-and-values
  const options: Json = {};
  if (request.maxOutputTokens !== undefined) options.num_predict = request.maxOutputTokens;
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.topP !== undefined) options.top_p = request.topP;
  if (request.stop?.length) options.stop = request.stop;
  if (Object.keys(options).length) body.options = options;

  if (request.extra) Object.assign(body, request.extra);
  return body;
}
