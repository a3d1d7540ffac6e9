/**
 * Validates encoded request bodies against the providers' published request schemas
 * in test/api-schemas, copied byte for byte from ../shared/api-schemas (see SOURCES.md there for which component, how strict,
 * and known disagreements with the live APIs).
 *
 * The OpenAPI documents are 3.1 but carry 3.0 leftovers that a 2020-12 validator
 * would misread, so a copy is normalized before compiling:
 * - `nullable: true` becomes a `null` type alternative, `nullable: false` is dropped;
 * - boolean `exclusiveMinimum`/`exclusiveMaximum` (3.0 style) are dropped;
 * - `oneOf` becomes `anyOf`: the OpenAI branches overlap (an input message matches
 *   both `EasyInputMessage` and `InputMessage`), so strict `oneOf` rejects valid bodies;
 * - `discriminator` without `mapping` is ignored (ajv `strict: false`).
 * Compiled validators are cached per file and component.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

export const API_SCHEMAS_DIR = join(import.meta.dirname, 'api-schemas');

function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === 'discriminator' || key === 'example' || key === 'examples') continue;
    if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'boolean') continue;
    out[key === 'oneOf' ? 'anyOf' : key] = normalize(value);
  }
  // `nullable: false` is the default; ajv rejects the keyword without a `type` beside it (CreateModerationRequest.model).
  if (out.nullable === false) delete out.nullable;
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
    else if (out.type === undefined && (out.enum === undefined || Array.isArray(out.enum))) {
      return { anyOf: [out, { type: 'null' }] };
    }
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

const documents = new Map<string, Ajv2020>();
const validators = new Map<string, ValidateFunction>();

function ajvFor(file: string): Ajv2020 {
  let ajv = documents.get(file);
  if (ajv) return ajv;
  const text = readFileSync(join(API_SCHEMAS_DIR, file), 'utf8');
  const raw = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  const doc = normalize(raw) as Record<string, unknown>;
  delete doc.$schema;
  doc.$id = `schema://${file}`;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(doc);
  documents.set(file, ajv);
  return ajv;
}

/** A validator for `#/components/schemas/<name>` (or any JSON pointer) in one of the schema files. */
export function schemaValidator(file: string, pointer: string): ValidateFunction {
  const fragment = pointer.startsWith('#') ? pointer : `#${pointer}`;
  const key = `${file}${fragment}`;
  let validate = validators.get(key);
  if (!validate) {
    const ajv = ajvFor(file);
    validate = ajv.compile({ $ref: `schema://${file}${fragment}` });
    validators.set(key, validate);
  }
  return validate;
}

/** A body checker for one request schema: `{ valid, errors }` (errors empty when valid). */
export function requestValidator(file: string, pointer: string): (body: unknown) => { valid: boolean; errors: ErrorObject[] } {
  const validate = schemaValidator(file, pointer);
  return (body) => {
    const valid = validate(body) as boolean;
    return { valid, errors: valid ? [] : [...(validate.errors ?? [])] };
  };
}

/** Readable errors, most specific first, for an assertion message. */
export function formatErrors(errors: ErrorObject[] | null | undefined, max = 12): string {
  if (!errors?.length) return '';
  return errors
    .slice(0, max)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n');
}

/** Returns '' when `body` is valid, else the validation errors as text. */
export function validateAgainst(file: string, pointer: string, body: unknown): string {
  const validate = schemaValidator(file, pointer);
  return validate(body) ? '' : formatErrors(validate.errors);
}

export const OPENAI_SCHEMA = 'openai__openai-openapi__openapi.json';

// ---------------------------------------------------------------- Google discovery documents
// (added for google_gemini) The Gemini API publishes a Google discovery document, not
// OpenAPI. Its schemas are converted to JSON Schema here: `$ref: "Name"` -> `#/$defs/Name`,
// `type: "any"` -> {}. The format has no `required` and no `additionalProperties`; the
// server rejects unknown field names (SOURCES.md), so objects with declared properties
// are closed (`additionalProperties: false`) to catch a misspelled field; maps stay open.

interface DiscoverySchema {
  type?: string;
  $ref?: string;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
  items?: DiscoverySchema;
  enum?: string[];
}

function fromDiscovery(node: DiscoverySchema, known: Set<string>): Record<string, unknown> {
  // The document has a dangling ref (Part.mediaResolution -> MediaResolution): accept anything there.
  if (node.$ref !== undefined) return known.has(node.$ref) ? { $ref: `#/$defs/${node.$ref}` } : {};
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = { type: 'object' };
      if (node.properties) {
        out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, fromDiscovery(v, known)]));
        out.additionalProperties = node.additionalProperties ? fromDiscovery(node.additionalProperties, known) : false;
      } else if (node.additionalProperties) {
        out.additionalProperties = fromDiscovery(node.additionalProperties, known);
      }
      return out;
    }
    case 'array':
      return node.items ? { type: 'array', items: fromDiscovery(node.items, known) } : { type: 'array' };
    case 'string':
      // int64 values also travel as strings in this format; enums are closed.
      return node.enum ? { type: 'string', enum: node.enum } : { type: 'string' };
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: node.type };
    default:
      return {};
  }
}

/** A validator for `#/schemas/<name>` of a Google discovery document, e.g. `discoveryValidator('google__lingua__discovery.json', 'GenerateContentRequest')`. */
export function discoveryValidator(file: string, name: string): ValidateFunction {
  const key = `discovery:${file}#${name}`;
  let validate = validators.get(key);
  if (!validate) {
    const doc = JSON.parse(readFileSync(join(API_SCHEMAS_DIR, file), 'utf8')) as { schemas: Record<string, DiscoverySchema> };
    const known = new Set(Object.keys(doc.schemas));
    const $defs = Object.fromEntries(Object.entries(doc.schemas).map(([n, s]) => [n, fromDiscovery(s, known)]));
    validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile({ $defs, $ref: `#/$defs/${name}` });
    validators.set(key, validate);
  }
  return validate;
}

/** Returns '' when `body` is valid against a discovery schema, else the validation errors as text. */
export function validateAgainstDiscovery(file: string, name: string, body: unknown): string {
  const validate = discoveryValidator(file, name);
  return validate(body) ? '' : formatErrors(validate.errors);
}

export const GOOGLE_SCHEMA = 'google__lingua__discovery.json';
