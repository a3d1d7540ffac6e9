/**
 * ModelRequest -> GenerateContentRequest.
 * https://ai.google.dev/api/generate-content#request-body
 *
 * Handoff rule (shared by every dialect):
 * - providerState of another dialect is ignored; only `providerState.google_gemini` is read.
 * - Reasoning with Gemini state (or from a Gemini message) goes back as a `thought: true` part
 *   with its `thoughtSignature`; other reasoning has no place in Gemini's history, so its text
 *   is sent as a model text part wrapped in `<thinking>...</thinking>`; empty or redacted
 *   reasoning is dropped.
 * - Provider-executed calls and results of another dialect are dropped (Gemini's own code
 *   execution parts go back as `executableCode` / `codeExecutionResult`).
 * - Gemini matches a function response to its call by name (and by `id` when the API gave
 *   one, kept in providerState), so Parlance's tool-call ids never reach the wire. A result
 *   answers the latest earlier call with its id (ids repeat across turns); a result whose
 *   call is not in the history before it is dropped: Gemini 3 rejects a response count that
 *   differs from the call count.
 * - Gemini 3 rejects a function call in the history without a thought signature (a call
 *   that came from another model). Google's documented escape hatch is a dummy signature on
 *   the first call of the turn: https://ai.google.dev/gemini-api/docs/thought-signatures#faqs
 * - A content tool output (text and files) sends its files as `functionResponse.parts` on
 *   Gemini 3+, else as parts after the turn's responses (tool-content.ts).
 */
import { toolContentOf, type Message, type ModelRequest, type Part, type ReasoningEffort, type ToolChoice } from '@parlance/protocol';
import { inlineFile } from '../shared/inline-file.ts';
import { isObject, type JsonObject, toArgumentsObject } from '../shared/json.ts';
import { LEADING_USER_TEXT } from '../shared/leading-turn.ts';
import { repairToolPairs } from '../shared/tool-pairs.ts';
import type { EncodeOptions } from '../types.ts';
import { summariesAsText } from '../shared/summary-parts.ts';
import { geminiToolContent } from './tool-content.ts';

const DIALECT = 'google_gemini';
const DUMMY_SIGNATURE = 'skip_thought_signature_validator';

type Json = JsonObject;
interface Content {
  role: 'user' | 'model';
  parts: Json[];
}


function stateOf(part: Part): Json | undefined {
  const state = part.providerState?.[DIALECT];
  return isObject(state) ? state : undefined;
}

/** Gemini 3 and later take `thinkingLevel`; 2.x takes `thinkingBudget`. Read from the model name. */
export function geminiGeneration(model: string): number | undefined {
  const match = /gemini-(\d+)/i.exec(model);
  return match ? Number(match[1]) : undefined;
}

/** https://ai.google.dev/api/caching#Content: inline base64 data, or a file by URI (Files API, public URLs). */
function filePart(given: Extract<Part, { type: 'file' }>, path: (string | number)[]): Json {
  const part = inlineFile(given, path);
  if (part.data !== undefined) return { inlineData: { mimeType: part.mediaType, data: part.data } };
  const dataUrl = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(part.url);
  if (dataUrl) return { inlineData: { mimeType: dataUrl[1] ?? part.mediaType, data: dataUrl[2] } };
  return { fileData: { mimeType: part.mediaType, fileUri: part.url } };
}


/** https://ai.google.dev/gemini-api/docs/function-calling: `{ output }` / `{ error }` when the result is not an object. */
function responseObject(output: unknown, isError: boolean | undefined): Json {
  if (isError) return { error: output };
  return isObject(output) ? output : { output };
}

interface CallInfo {
  name: string;
  providerId?: string;
}

function modelParts(message: Message, generation: number | undefined, at: number): Json[] {
  const parts: Json[] = [];
  const fromGemini = message.provenance?.dialect === DIALECT;
  const signatureOf = (part: Part | undefined) => {
    const state = part && stateOf(part);
    return typeof state?.thoughtSignature === 'string' ? state.thoughtSignature : undefined;
  };
  message.parts.forEach((part, index) => {
    const state = stateOf(part);
    let signature = signatureOf(part);
    // The decoder gives thoughts the signature Gemini put on the text after them; it goes back once, on that text.
    if (part.type === 'reasoning' && signature !== undefined && message.parts[index + 1]?.type === 'text' && signatureOf(message.parts[index + 1]) === signature) signature = undefined;
    switch (part.type) {
      case 'text':
        if (part.text !== '' || signature) parts.push(signature ? { text: part.text, thoughtSignature: signature } : { text: part.text });
        break;
      case 'reasoning':
        if (state || fromGemini) {
          if (part.text === '' && !signature) break;
          const thought: Json = { text: part.text, thought: true };
          if (signature) thought.thoughtSignature = signature;
          parts.push(thought);
        } else if (!part.redacted && part.text.trim() !== '') {
          parts.push({ text: `<thinking>${part.text}</thinking>` });
        }
        break;
      case 'tool-call': {
        if (part.providerExecuted) {
          if (state?.executableCode && isObject(part.input)) {
            parts.push(signature ? { executableCode: part.input, thoughtSignature: signature } : { executableCode: part.input });
          }
          break;
        }
        const call: Json = { name: part.name, args: toArgumentsObject(part.input) };
        if (typeof state?.id === 'string') call.id = state.id;
        parts.push(signature ? { functionCall: call, thoughtSignature: signature } : { functionCall: call });
        break;
      }
      case 'tool-result':
        if (part.providerExecuted && state?.codeExecutionResult && isObject(part.output)) {
          parts.push(signature ? { codeExecutionResult: part.output, thoughtSignature: signature } : { codeExecutionResult: part.output });
        }
        break;
      case 'file': {
        // Generated images go back with their signature (and draft images as thoughts), as received.
        const file = filePart(part, ['messages', at, 'parts', index]);
        if (state?.thought === true) file.thought = true;
        if (signature) file.thoughtSignature = signature;
        parts.push(file);
        break;
      }
      case 'source':
        break;
    }
  });
  if ((generation ?? 0) >= 3) {
    const first = parts.find((p) => p.functionCall !== undefined);
    if (first && first.thoughtSignature === undefined) first.thoughtSignature = DUMMY_SIGNATURE;
  }
  return parts;
}

function userParts(message: Message, calls: Map<string, CallInfo>, generation: number | undefined, at: number): Json[] {
  const parts: Json[] = [];
  // Files of content tool outputs that a function response cannot hold: after the turn's responses.
  const after: Json[] = [];
  for (const [index, part] of message.parts.entries()) {
    switch (part.type) {
      case 'text':
        if (part.text !== '') parts.push({ text: part.text });
        break;
      case 'file':
        parts.push(filePart(part, ['messages', at, 'parts', index]));
        break;
      case 'tool-result': {
        if (part.providerExecuted) break;
        const call = calls.get(part.toolCallId);
        if (!call) break;
        const content = part.isError ? undefined : toolContentOf(part.output);
        const media = content ? geminiToolContent(content, call.name, generation) : undefined;
        const response: Json = { name: call.name, response: media ? media.response : responseObject(part.output, part.isError) };
        if (call.providerId) response.id = call.providerId;
        if (media?.parts.length) response.parts = media.parts;
        if (media) after.push(...media.after);
        parts.push({ functionResponse: response });
        break;
      }
      default:
        break;
    }
  }
  return after.length > 0 ? [...parts, ...after] : parts;
}

function systemText(message: Message): string {
  return message.parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

/** Gemini accepts JSON Schema as is in `parametersJsonSchema` / `responseJsonSchema`; `$schema` is not part of what it documents. */
function jsonSchema(schema: Json): Json {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function hasParameters(schema: Json): boolean {
  if (schema.type !== undefined && schema.type !== 'object') return true;
  const keys = Object.keys(schema).filter((k) => !['type', 'properties', '$schema', 'additionalProperties', 'required'].includes(k));
  return keys.length > 0 || (isObject(schema.properties) && Object.keys(schema.properties).length > 0);
}

/** https://ai.google.dev/api/caching#FunctionCallingConfig */
function functionCallingConfig(choice: ToolChoice): Json {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

const LEVELS: Record<ReasoningEffort, string> = { minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', xhigh: 'HIGH' };
/** Budgets within every 2.5 model's range (Flash: 0..24576, Pro: 128..32768, Flash-Lite: 512..24576). */
const BUDGETS: Record<ReasoningEffort, number> = { minimal: 512, low: 2048, medium: 8192, high: 16384, xhigh: 24576 };

/**
 * https://ai.google.dev/gemini-api/docs/thinking. Gemini 3+ (by model name): effort ->
 * `thinkingLevel`, a budget -> `thinkingBudget` (kept for compatibility), `false` -> MINIMAL
 * (Gemini 3 cannot switch thinking off). Gemini 2.x and unknown names: effort -> a budget,
 * `false` -> budget 0 (2.5 Pro rejects 0: it cannot switch thinking off either).
 * `includeThoughts` asks for thought summaries whenever thinking is on.
 */
function thinkingConfig(request: ModelRequest): Json | undefined {
  const thinking = request.thinking;
  if (thinking === undefined) return undefined;
  const gen3 = (geminiGeneration(request.model) ?? 0) >= 3;
  if (thinking === false) return gen3 ? { thinkingLevel: 'MINIMAL' } : { thinkingBudget: 0 };
  const config: Json = { includeThoughts: true };
  if (gen3 && thinking.effort) config.thinkingLevel = LEVELS[thinking.effort];
  else if (thinking.budgetTokens !== undefined) config.thinkingBudget = thinking.budgetTokens;
  else if (thinking.effort) config.thinkingBudget = BUDGETS[thinking.effort];
  return config;
}

export function encodeGeminiRequest(original: ModelRequest, options: EncodeOptions = {}): Record<string, unknown> {
  const request = summariesAsText(original);
  const generation = geminiGeneration(request.model);
  const system: string[] = request.system ? [request.system] : [];
  // The latest call per id, filled in thread order: a result answers the latest call with its
  // id. Ids repeat across turns (Gemini sends none, so calls are numbered per response), and a
  // result paired with a later call of another tool would carry the wrong name.
  const calls = new Map<string, CallInfo>();

  const contents: Content[] = [];
  for (const [at, message] of repairToolPairs(request.messages).entries()) {
    for (const part of message.parts) {
      if (part.type !== 'tool-call' || part.providerExecuted) continue;
      const id = stateOf(part)?.id;
      calls.set(part.id, typeof id === 'string' ? { name: part.name, providerId: id } : { name: part.name });
    }
    if (message.role === 'system') {
      const text = systemText(message);
      if (text) system.push(text);
      continue;
    }
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts = role === 'model' ? modelParts(message, generation, at) : userParts(message, calls, generation, at);
    if (parts.length === 0) continue;
    // Tool results (a `tool` message) and the next user message share one user turn.
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }

  const body: Json = { contents };
  // `contents` must not be empty ("contents is not specified"): a request that is only a system
  // prompt sends it as the user turn.
  if (contents[0]?.role === 'model') contents.unshift({ role: 'user', parts: [{ text: LEADING_USER_TEXT }] });
  if (contents.length === 0 && system.length) contents.push({ role: 'user', parts: [{ text: system.join('\n\n') }] });
  else if (system.length) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };

  if (request.tools?.length) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => {
          const declaration: Json = { name: tool.name };
          if (tool.description) declaration.description = tool.description;
          // `parametersJsonSchema` takes JSON Schema directly (no OpenAPI-subset conversion);
          // a tool without parameters leaves it out, as the API expects.
          if (hasParameters(tool.inputSchema)) declaration.parametersJsonSchema = jsonSchema(tool.inputSchema);
          return declaration;
        }),
      },
    ];
    if (request.toolChoice) body.toolConfig = { functionCallingConfig: functionCallingConfig(request.toolChoice) };
  } else if (request.toolChoice !== undefined) {
    options.onWarning?.({ setting: 'toolChoice', message: 'toolConfig was not sent: the request has no tools' });
  }

  // https://ai.google.dev/api/generate-content#generationconfig
  const generationConfig: Json = {};
  if (request.maxOutputTokens !== undefined) generationConfig.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) generationConfig.temperature = request.temperature;
  if (request.topP !== undefined) generationConfig.topP = request.topP;
  if (request.stop?.length) generationConfig.stopSequences = request.stop;
  if (request.output) {
    // https://ai.google.dev/gemini-api/docs/structured-output: JSON Schema in `responseJsonSchema`.
    // Gemini has no strict flag or schema name; `name`/`description` are not sent.
    generationConfig.responseMimeType = 'application/json';
    generationConfig.responseJsonSchema = jsonSchema(request.output.schema);
  }
  const thinking = thinkingConfig(request);
  if (thinking) generationConfig.thinkingConfig = thinking;
  if (Object.keys(generationConfig).length) body.generationConfig = generationConfig;

  // `cache`: Gemini caches prompt prefixes implicitly; explicit caches are separate resources
  // (`cachedContents/...`), so a `cachedContent` name is only sent when given in `extra`.
  // https://ai.google.dev/gemini-api/docs/caching
  // `extra` is merged last and shallow: an `extra.generationConfig` replaces the one built here.
  if (request.extra) Object.assign(body, request.extra);
  return body;
}
