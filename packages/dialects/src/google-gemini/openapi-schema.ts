/**
 * Gemini's `responseSchema` and function `parameters` take the OpenAPI 3.0 subset Google
 * documents (`Schema`): upper-case `type` names (`OBJECT`, `STRING`, ...; clients also send them
 * lower-case), `nullable: true` instead of a `null` type, `propertyOrdering`, a single `example`.
 * Every other provider takes JSON Schema, so a Gemini caller's schema is translated before it
 * becomes the protocol's (`responseJsonSchema` / `parametersJsonSchema` are JSON Schema already).
 * https://ai.google.dev/api/caching#Schema
 * https://ai.google.dev/gemini-api/docs/structured-output
 */
import { isObject, type JsonObject } from '../shared/json.ts';

/** Nesting deeper than this is left as is (a schema is client input; recursion is bounded). */
const MAX_DEPTH = 64;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

/** Keywords of the OpenAPI subset that hold one schema, a list of schemas, or a map of schemas. */
const ONE = ['items', 'not', 'additionalProperties'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', '$defs', 'definitions'];

/**
 * A Gemini OpenAPI-subset schema as JSON Schema: types lower-cased (`TYPE_UNSPECIFIED` dropped),
 * `nullable: true` -> a `null` type (or `anyOf` with `{ type: 'null' }` when there is no type),
 * `example` -> `examples`, `propertyOrdering` dropped; everything else kept.
 *
 * @example
 * ```ts
 * openApiToJsonSchema({ type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true } }, required: ['n'] });
 * // { type: 'object', properties: { n: { type: ['integer', 'null'] } }, required: ['n'] }
 * ```
 */
export function openApiToJsonSchema(schema: JsonObject, depth = 0): JsonObject {
  if (depth > MAX_DEPTH) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'propertyOrdering') continue;
    if (key === 'type' && typeof value === 'string') {
      const type = value.toLowerCase();
      if (TYPES.has(type)) out.type = type;
    } else if (key === 'example') out.examples = [value];
    else if (ONE.includes(key) && isObject(value)) out[key] = openApiToJsonSchema(value, depth + 1);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map((item) => (isObject(item) ? openApiToJsonSchema(item, depth + 1) : item));
    else if (MAP.includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, isObject(item) ? openApiToJsonSchema(item, depth + 1) : item]));
    } else out[key] = value;
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    } else if (out.type === undefined) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

/**
 * Whether a schema is in the OpenAPI subset rather than JSON Schema: an upper-case type name or
 * `nullable` anywhere (JSON Schema has neither), so a JSON Schema sent in `parameters` is kept as is.
 *
 * @example
 * ```ts
 * isOpenApiSchema({ type: 'OBJECT' }); // true
 * isOpenApiSchema({ type: 'object', properties: { a: { type: ['string', 'null'] } } }); // false
 * ```
 */
export function isOpenApiSchema(schema: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(schema)) return schema.some((item) => isOpenApiSchema(item, depth + 1));
  if (!isObject(schema)) return false;
  if (typeof schema.type === 'string' && schema.type !== schema.type.toLowerCase()) return true;
  if (typeof schema.nullable === 'boolean' || Array.isArray(schema.propertyOrdering)) return true;
  return Object.entries(schema).some(([key, value]) => key !== 'enum' && key !== 'required' && key !== 'examples' && typeof value === 'object' && isOpenApiSchema(value, depth + 1));
}

/** The JSON Schema of a schema a Gemini caller sent in an OpenAPI-subset field. */
export function fromGeminiSchema(schema: JsonObject): JsonObject {
  return isOpenApiSchema(schema) ? openApiToJsonSchema(schema) : schema;
}
