/**
 * Request decoding: the inverse of `encodeRequest`. A provider request body, as an
 * official SDK sends it, becomes a `ModelRequest`; what the protocol has no field for is
 * kept in `extra` (re-encoded verbatim by the same dialect) or in a part's `providerState`,
 * so a same-dialect round trip keeps the request's meaning. Bodies are untrusted input:
 * anything malformed is a `ParlanceError('invalid_request')` with the path of the problem.
 */
import { ParlanceError, type FilePart, type Message, type ModelRequest, type Part, type ToolDefinition } from '@parlance/protocol';
import { isObject, type JsonObject } from './json.ts';
import { isBase64 } from './tool-content.ts';

/**
 * What the URL says about a request (Gemini names the model and the method in the path).
 *
 * @example
 * ```ts
 * getDialect('google_gemini').decodeRequest(body, { model: 'gemini-2.5-flash', stream: true });
 * ```
 */
export interface RequestDecodeOptions {
  /** The model named outside the body (Gemini puts it in the path). */
  model?: string;
  /** Whether the call streams, when the URL says so (Gemini's method name). */
  stream?: boolean;
  /**
   * Responses: the conversation `previous_response_id` names, resolved by the caller (a gateway
   * with a store); without it such a request is refused.
   */
  previousMessages?: readonly Message[];
  /**
   * Responses: what each `item_reference` names (by item id), resolved by the caller; an
   * unresolved reference is refused.
   */
  items?: ReadonlyMap<string, { role: 'assistant' | 'user'; parts: Part[] }>;
}

/**
 * A decoded provider request and whether the caller asked for a stream.
 *
 * @example
 * ```ts
 * const { request, stream } = getDialect('openai_completions').decodeRequest(await req.json());
 * ```
 */
export interface DecodedRequest {
  request: ModelRequest;
  /** Whether the client asked for a streamed answer. */
  stream: boolean;
}

/**
 * What each dialect offers to read its own API's requests (every `Dialect` has it).
 *
 * @example
 * ```ts
 * const { request } = getDialect('anthropic_messages').decodeRequest(body); // ModelRequest; malformed -> ParlanceError('invalid_request')
 * ```
 */
export interface RequestDecoding {
  /** A provider request body -> ModelRequest (throws `invalid_request` for a malformed body). */
  decodeRequest(body: unknown, options?: RequestDecodeOptions): DecodedRequest;
}

export type Path = (string | number)[];

export function invalid(message: string, path: Path): never {
  throw new ParlanceError('invalid_request', message, { path, retryable: false });
}

export function objectAt(value: unknown, path: Path): JsonObject {
  if (!isObject(value)) invalid(`${path.join('.') || 'The body'} must be a JSON object`, path);
  return value;
}

export function arrayAt(value: unknown, path: Path): unknown[] {
  if (!Array.isArray(value)) invalid(`${path.join('.')} must be an array`, path);
  return value;
}

export function stringAt(value: unknown, path: Path): string {
  if (typeof value !== 'string') invalid(`${path.join('.')} must be a string`, path);
  return value;
}

/**
 * A file's inline data: a string of standard base64. Anything else is refused here (400, with the
 * path) rather than passed on for the provider to fail on, or a run to read as other bytes.
 */
export function base64At(value: unknown, path: Path): string {
  const data = stringAt(value, path);
  if (!isBase64(data)) invalid(`${path.join('.')} must be base64-encoded file data`, path);
  return data;
}

export function numberAt(value: unknown, path: Path): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(`${path.join('.')} must be a number`, path);
  return value;
}

/** `stop` given as one string or a list of strings. */
export function stopList(value: unknown, path: Path): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  return arrayAt(value, path).map((item, i) => stringAt(item, [...path, i]));
}

/** The model from the body (or the URL), required. */
export function modelOf(body: JsonObject, options: RequestDecodeOptions): string {
  const model = options.model ?? body.model;
  if (typeof model !== 'string' || model === '') invalid('The request names no model', ['model']);
  return model;
}

/** A file part from a `data:<type>;base64,<data>` URL (its data checked: `base64At`), or a remote URL. */
export function fileFromUrl(url: string, mediaType: string | undefined, filename?: string, path: Path = []): FilePart {
  const match = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  const part: FilePart = match
    ? { type: 'file', mediaType: match[1] ?? mediaType ?? 'application/octet-stream', data: base64At(match[2], path) }
    : { type: 'file', mediaType: mediaType ?? guessMediaType(url), url };
  if (filename !== undefined) part.filename = filename;
  return part;
}

function guessMediaType(url: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  const known: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf' };
  return (ext && known[ext]) ?? 'image/*';
}

/** Tool-call arguments sent as a JSON string: parsed, or kept as the raw string when not JSON. */
export function parseArguments(text: unknown, path: Path): unknown {
  if (isObject(text)) return text;
  const raw = stringAt(text ?? '', path);
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** The fields of `body` not in `known`, for `extra` (undefined when there are none). */
export function rest(body: JsonObject, known: readonly string[]): JsonObject | undefined {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) if (!known.includes(key)) out[key] = value;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Sets optional fields only when defined (exactOptionalPropertyTypes-friendly). */
export function assignDefined<T extends object>(target: T, values: Partial<T>): T {
  for (const [key, value] of Object.entries(values)) if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  return target;
}

/**
 * A request's tool list. `functionOf` gives a function tool's own object (or undefined for a
 * tool the protocol has no form for, such as a provider's server tools: then the whole list
 * stays in `extra` and `keep` is set); `schemaKey` names its JSON Schema field.
 */
export function decodeToolList(
  value: unknown,
  functionOf: (tool: JsonObject, index: number) => JsonObject | undefined,
  schemaKey: string,
  pathOf: (index: number) => Path,
): { tools?: ToolDefinition[]; keep: boolean } {
  if (value === undefined || value === null) return { keep: false };
  const list = arrayAt(value, ['tools']);
  const functions = list.map((tool, i) => (isObject(tool) ? functionOf(tool, i) : undefined));
  if (functions.some((fn) => fn === undefined)) return { keep: true };
  return {
    keep: false,
    tools: (functions as JsonObject[]).map((fn, i) => {
      const schema = fn[schemaKey];
      const tool: ToolDefinition = { name: stringAt(fn.name, [...pathOf(i), 'name']), inputSchema: isObject(schema) ? schema : { type: 'object', properties: {} } };
      if (typeof fn.description === 'string') tool.description = fn.description;
      if (typeof fn.strict === 'boolean') tool.strict = fn.strict;
      return tool;
    }),
  };
}
