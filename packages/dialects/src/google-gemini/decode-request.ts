/**
 * GenerateContentRequest -> ModelRequest: the inverse of ./encode.ts.
 * https://ai.google.dev/api/generate-content#request-body
 * The model and whether it streams come from the URL (`models/{model}:generateContent` or
 * `:streamGenerateContent`), given in the options.
 *
 * - `systemInstruction` -> `system`; `contents` (user / model turns) -> messages.
 * - Parts: `text` (a `thought` part -> reasoning), `inlineData` / `fileData` -> files,
 *   `functionCall` -> tool calls (ids are Gemini's own when sent, else numbered),
 *   `functionResponse` -> tool results paired with the latest call of that name (or id);
 *   `{ output }` / `{ error }` responses unwrap as the encoder wraps them; `inlineData` in
 *   its `parts` makes the output a content output (the files stay media). Every
 *   `thoughtSignature` stays on its part in this dialect's providerState (and as the
 *   reasoning's signature), so it goes back where it came from.
 * - `generationConfig`: `maxOutputTokens`, `temperature`, `topP`, `stopSequences`,
 *   `responseJsonSchema` (or `responseSchema`) with `responseMimeType: application/json`,
 *   `thinkingConfig` (a budget, a level, 0 -> off); function declarations and
 *   `toolConfig.functionCallingConfig` -> tools and the tool choice. A `generationConfig`
 *   with anything more, other tools (search, code execution), `safetySettings`,
 *   `cachedContent` ... stay in `extra` (the whole object, as the encoder merges shallowly).
 */
import type { Message, ModelRequest, Part, ReasoningEffort, ThinkingSetting, ToolChoice, ToolContentPart, ToolDefinition } from '@parlance/protocol';
import { isObject, type JsonObject } from '../shared/json.ts';
import { decodedToolOutput } from '../shared/tool-content.ts';
import { fromGeminiSchema } from './openapi-schema.ts';
import {
  base64At,
  arrayAt,
  assignDefined,
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
import { geminiState } from './decode.ts';

const DIALECT = 'google_gemini';
const KNOWN = ['model', 'contents', 'systemInstruction', 'generationConfig', 'tools', 'toolConfig'];
const CONFIG_KNOWN = ['maxOutputTokens', 'temperature', 'topP', 'stopSequences', 'responseMimeType', 'responseJsonSchema', 'responseSchema', 'thinkingConfig'];
const LEVELS: Record<string, ReasoningEffort> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };

interface Calls {
  count: number;
  /** Open calls per function name, oldest first (a response answers the earliest unanswered one). */
  byName: Map<string, string[]>;
  byId: Map<string, string>;
}

function responseOutput(response: unknown): { output: unknown; isError: boolean } {
  if (isObject(response)) {
    const keys = Object.keys(response);
    if (keys.length === 1 && keys[0] === 'output') return { output: response.output, isError: false };
    if (keys.length === 1 && keys[0] === 'error') return { output: response.error, isError: true };
  }
  return { output: response ?? {}, isError: false };
}

function decodePart(raw: unknown, path: Path, role: 'user' | 'model', calls: Calls): Part {
  const part = objectAt(raw, path);
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
  if (typeof part.text === 'string') {
    if (part.thought === true) {
      const out: Part = { type: 'reasoning', text: part.text, providerState: geminiState({ thoughtSignature: signature }) ?? { [DIALECT]: {} } };
      if (signature !== undefined) out.signature = signature;
      return out;
    }
    const text: Part = { type: 'text', text: part.text };
    const state = geminiState({ thoughtSignature: signature });
    if (state) text.providerState = state;
    return text;
  }
  if (isObject(part.inlineData)) {
    const file: Part = { type: 'file', mediaType: stringAt(part.inlineData.mimeType, [...path, 'inlineData', 'mimeType']), data: base64At(part.inlineData.data, [...path, 'inlineData', 'data']) };
    const state = geminiState({ thoughtSignature: signature, thought: part.thought === true ? true : undefined });
    if (state) file.providerState = state;
    return file;
  }
  if (isObject(part.fileData)) {
    return { type: 'file', mediaType: typeof part.fileData.mimeType === 'string' ? part.fileData.mimeType : 'application/octet-stream', url: stringAt(part.fileData.fileUri, [...path, 'fileData', 'fileUri']) };
  }
  if (isObject(part.functionCall)) {
    if (role !== 'model') invalid('functionCall parts belong in model turns', [...path, 'functionCall']);
    const name = stringAt(part.functionCall.name, [...path, 'functionCall', 'name']);
    const providerId = typeof part.functionCall.id === 'string' && part.functionCall.id !== '' ? part.functionCall.id : undefined;
    const id = providerId ?? `call_${calls.count}`;
    calls.count++;
    const open = calls.byName.get(name) ?? [];
    open.push(id);
    calls.byName.set(name, open);
    if (providerId) calls.byId.set(providerId, id);
    const call: Part = { type: 'tool-call', id, name, input: isObject(part.functionCall.args) ? part.functionCall.args : {} };
    const state = geminiState({ thoughtSignature: signature, id: providerId });
    if (state) call.providerState = state;
    return call;
  }
  if (isObject(part.functionResponse)) {
    const name = stringAt(part.functionResponse.name, [...path, 'functionResponse', 'name']);
    const providerId = typeof part.functionResponse.id === 'string' ? part.functionResponse.id : undefined;
    let id = providerId !== undefined ? calls.byId.get(providerId) : undefined;
    const open = calls.byName.get(name) ?? [];
    if (id !== undefined) open.splice(open.indexOf(id) >>> 0, 1);
    else id = open.shift() ?? providerId ?? `result_${name}`;
    const { output: response, isError } = responseOutput(part.functionResponse.response);
    // Media in the response (Gemini 3's `functionResponse.parts`): a content output, so it goes on as media.
    const files = responseFiles(part.functionResponse.parts);
    const output = files.length > 0 && !isError ? decodedToolOutput([{ type: 'text', text: typeof response === 'string' ? response : JSON.stringify(response) }, ...files]) : response;
    const result: Part = { type: 'tool-result', toolCallId: id, name, output };
    if (isError) result.isError = true;
    return result;
  }
  return invalid('Parts other than text, inlineData, fileData, functionCall and functionResponse are not supported through a gateway', path);
}

/**
 * A streamed answer kept by a client holds one part per chunk (the SDK's chat history does
 * this): consecutive thoughts form one reasoning part, as the stream decoder reads them, the
 * signature (sent on the last) staying with the block. Texts stay apart: a model may send
 * separate text parts on purpose.
 */
function mergeThoughts(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (last?.type === 'reasoning' && part.type === 'reasoning' && last.signature === undefined) {
      const merged: Part = { ...last, text: last.text + part.text };
      if (part.signature !== undefined) {
        merged.signature = part.signature;
        if (part.providerState) merged.providerState = part.providerState;
      }
      out[out.length - 1] = merged;
      continue;
    }
    out.push(part);
  }
  return out;
}

function decodeTools(value: unknown): { tools?: ToolDefinition[]; keep: boolean } {
  if (value === undefined || value === null) return { keep: false };
  const list = arrayAt(value, ['tools']);
  if (list.some((tool) => !isObject(tool) || Object.keys(tool).some((key) => key !== 'functionDeclarations'))) return { keep: true };
  const tools: ToolDefinition[] = [];
  list.forEach((raw, i) => {
    arrayAt((raw as JsonObject).functionDeclarations, ['tools', i, 'functionDeclarations']).forEach((decl, j) => {
      const at = ['tools', i, 'functionDeclarations', j];
      const fn = objectAt(decl, at);
      const schema = isObject(fn.parametersJsonSchema) ? fn.parametersJsonSchema : isObject(fn.parameters) ? fromGeminiSchema(fn.parameters) : { type: 'object', properties: {} };
      const tool: ToolDefinition = { name: stringAt(fn.name, [...at, 'name']), inputSchema: schema };
      if (typeof fn.description === 'string') tool.description = fn.description;
      tools.push(tool);
    });
  });
  return { tools, keep: false };
}

function toolChoice(value: unknown): ToolChoice | undefined {
  if (!isObject(value) || !isObject(value.functionCallingConfig)) return undefined;
  const config = value.functionCallingConfig;
  const allowed = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames : [];
  switch (config.mode) {
    case 'AUTO':
    case 'VALIDATED':
      return 'auto';
    case 'NONE':
      return 'none';
    case 'ANY':
      return allowed.length === 1 && typeof allowed[0] === 'string' ? { type: 'tool', name: allowed[0] } : 'required';
    default:
      return undefined;
  }
}

function thinkingOf(config: JsonObject): ThinkingSetting | undefined {
  const budget = numberAt(config.thinkingBudget, ['generationConfig', 'thinkingConfig', 'thinkingBudget']);
  const level = typeof config.thinkingLevel === 'string' ? LEVELS[config.thinkingLevel.toUpperCase()] : undefined;
  if (budget === 0 || (level === 'minimal' && config.includeThoughts !== true)) return false;
  if (level !== undefined) return { effort: level };
  if (budget !== undefined && budget > 0) return { budgetTokens: budget };
  return config.includeThoughts === true || budget === -1 ? {} : undefined;
}

export function decodeGeminiRequest(input: unknown, options: RequestDecodeOptions = {}): DecodedRequest {
  const body = objectAt(input, []);
  const model = modelOf(body, options).replace(/^models\//, '');
  const calls: Calls = { count: 0, byName: new Map(), byId: new Map() };
  const messages: Message[] = [];
  arrayAt(body.contents, ['contents']).forEach((raw, index) => {
    const path = ['contents', index];
    const content = objectAt(raw, path);
    const role = content.role === 'model' ? 'model' : 'user';
    const parts = mergeThoughts(arrayAt(content.parts, [...path, 'parts']).map((part, i) => decodePart(part, [...path, 'parts', i], role, calls)));
    if (role === 'model') {
      messages.push({ id: `msg_${index}`, role: 'assistant', parts, provenance: { provider: 'google', model, dialect: DIALECT } });
      return;
    }
    const results = parts.filter((part) => part.type === 'tool-result');
    const others = parts.filter((part) => part.type !== 'tool-result');
    if (results.length > 0) messages.push({ id: `msg_${index}_results`, role: 'tool', parts: results });
    if (others.length > 0 || results.length === 0) messages.push({ id: `msg_${index}`, role: 'user', parts: others });
  });

  const request: ModelRequest = { model, messages };
  if (body.systemInstruction !== undefined && body.systemInstruction !== null) {
    const instruction = objectAt(body.systemInstruction, ['systemInstruction']);
    const text = arrayAt(instruction.parts, ['systemInstruction', 'parts'])
      .map((part, i) => stringAt(objectAt(part, ['systemInstruction', 'parts', i]).text, ['systemInstruction', 'parts', i, 'text']))
      .join('\n\n');
    if (text !== '') request.system = text;
  }
  const decodedTools = decodeTools(body.tools);
  const extra = rest(body, decodedTools.keep ? KNOWN.filter((key) => key !== 'tools') : KNOWN) ?? {};
  assignDefined(request, { tools: decodedTools.tools, toolChoice: decodedTools.tools ? toolChoice(body.toolConfig) : undefined });
  if (body.toolConfig !== undefined && (decodedTools.keep || Object.keys(objectAt(body.toolConfig, ['toolConfig'])).some((key) => key !== 'functionCallingConfig'))) {
    extra.toolConfig = body.toolConfig;
  }
  if (body.generationConfig !== undefined && body.generationConfig !== null) {
    const config = objectAt(body.generationConfig, ['generationConfig']);
    assignDefined(request, {
      maxOutputTokens: numberAt(config.maxOutputTokens, ['generationConfig', 'maxOutputTokens']),
      temperature: numberAt(config.temperature, ['generationConfig', 'temperature']),
      topP: numberAt(config.topP, ['generationConfig', 'topP']),
      stop: stopList(config.stopSequences, ['generationConfig', 'stopSequences']),
    });
    const schema = isObject(config.responseJsonSchema) ? config.responseJsonSchema : isObject(config.responseSchema) ? fromGeminiSchema(config.responseSchema) : undefined;
    if (config.responseMimeType === 'application/json' && schema) request.output = { type: 'json', schema, strict: false };
    if (isObject(config.thinkingConfig)) {
      const thinking = thinkingOf(config.thinkingConfig);
      if (thinking !== undefined) request.thinking = thinking;
    }
    if (Object.keys(config).some((key) => !CONFIG_KNOWN.includes(key)) || isObject(config.responseSchema)) extra.generationConfig = config;
  }
  if (Object.keys(extra).length > 0) request.extra = extra;
  return { request, stream: options.stream ?? false };
}

/** The `inlineData` files of a function response's `parts` (others are not media this protocol carries). */
function responseFiles(parts: unknown): ToolContentPart[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part): ToolContentPart[] => {
    const blob = isObject(part) && isObject(part.inlineData) ? part.inlineData : undefined;
    return blob && typeof blob.mimeType === 'string' && typeof blob.data === 'string' ? [{ type: 'file', mediaType: blob.mimeType, data: blob.data }] : [];
  });
}
