/**
 * Strict JSON Schema for OpenAI's structured outputs and strict function calling.
 * https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 *
 * In strict mode "all fields must be required" and "additionalProperties: false must always be
 * set in objects"; optional fields are emulated with a union with null. The API rejects any
 * other schema ("'additionalProperties' is required to be supplied and to be false"), and the
 * schemas people write (and zod 4's JSON Schema) leave objects open and properties optional.
 *
 * `strictJsonSchema` rewrites a schema into that form: every object closed, every property
 * required, a property that was optional made nullable. Where that cannot be done without
 * changing what the schema accepts (an open map `additionalProperties: {...}`, a root that is
 * not an object, keywords strict mode does not support) it says so, and the dialect sends
 * `strict: false` with the schema unchanged. `dropNullOptionals` undoes the nullable rewrite on
 * what the model sent, so the caller's own validator sees an absent field, not `null`.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Keywords strict mode does not support (the guide's "Some type-specific keywords are not yet
 * supported" and "Composition": allOf, not, if/then/else, dependent schemas).
 */
const UNSUPPORTED = [
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
];

/** Keys whose value is a map of name -> schema. */
const SCHEMA_MAPS = ['properties', '$defs', 'definitions'];
/** Keys whose value is a schema or a list of schemas. */
const SCHEMA_VALUES = ['items', 'prefixItems', 'anyOf', 'oneOf'];

/**
 * 
 *
 * @example
 * const result = strictJsonSchema(schema);
 * const tool = result.strict ? { ...def, strict: true, parameters: result.schema } : def;
 */
export type StrictSchemaResult = { strict: true; schema: Json } | { strict: false; schema: Json; reason: string };

class NotStrict extends Error {}

function allowsNull(schema: Json): boolean {
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.anyOf) && schema.anyOf.some((s) => isObject(s) && allowsNull(s))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  return schema.const === null;
}

function nullable(schema: Json): Json {
  if (allowsNull(schema)) return schema;
  const type = schema.type;
  // A bare `type` (no enum/const that would also need the null): widen it in place.
  if ((typeof type === 'string' || Array.isArray(type)) && !('const' in schema)) {
    const out: Json = { ...schema, type: [...(Array.isArray(type) ? type : [type]), 'null'] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  return { anyOf: [schema, { type: 'null' }] };
}

function rewrite(schema: unknown, path: string): unknown {
  if (Array.isArray(schema)) return schema.map((s, i) => rewrite(s, `${path}/${i}`));
  if (!isObject(schema)) return schema;
  for (const key of UNSUPPORTED) if (key in schema) throw new NotStrict(`${path || '/'} uses \`${key}\`, which strict mode does not support`);
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, rewrite(sub, `${path}/${key}/${name}`)]));
    } else if (SCHEMA_VALUES.includes(key)) {
      out[key] = rewrite(value, `${path}/${key}`);
    } else {
      out[key] = value;
    }
  }
  const type = out.type;
  const isObjectSchema = type === 'object' || (Array.isArray(type) && type.includes('object')) || isObject(out.properties);
  if (!isObjectSchema) return out;
  if (out.additionalProperties !== undefined && out.additionalProperties !== false) {
    throw new NotStrict(`${path || '/'} allows additional properties (a map), which strict mode cannot express`);
  }
  out.additionalProperties = false;
  const properties = isObject(out.properties) ? out.properties : {};
  const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
  out.properties = Object.fromEntries(
    Object.entries(properties).map(([name, sub]) => [name, required.has(name) || !isObject(sub) ? sub : nullable(sub)]),
  );
  out.required = Object.keys(properties);
  return out;
}

/**
 * The schema in the form strict mode requires, or why it cannot be put in that form.
 *
 * @example
 * strictJsonSchema({ type: 'object', properties: { a: { type: 'string' } } });
 * // { strict: true, schema: { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false } }
 */
export function strictJsonSchema(schema: Json): StrictSchemaResult {
  const type = schema.type;
  if (type !== 'object' && !isObject(schema.properties)) {
    return { strict: false, schema, reason: 'the root of a strict schema must be an object' };
  }
  try {
    return { strict: true, schema: rewrite(schema, '') as Json };
  } catch (error) {
    if (error instanceof NotStrict) return { strict: false, schema, reason: error.message };
    throw error;
  }
}

function resolve(schema: Json, root: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = match ? root[match[1]!] : undefined;
  const target = isObject(defs) ? defs[match![2]!] : undefined;
  return isObject(target) ? target : schema;
}

/**
 * Removes the `null`s a strict schema made the model send for properties the original schema
 * (`schema`, before `strictJsonSchema`) left optional and that do not take null themselves.
 *
 * @example
 * dropNullOptionals({ a: null, b: 1 }, { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['b'] });
 * // { b: 1 }
 */
export function dropNullOptionals(value: unknown, schema: unknown, root: unknown = schema): unknown {
  if (!isObject(schema) || !isObject(root)) return value;
  const node = resolve(schema, root);
  if (Array.isArray(value)) {
    const items = node.items;
    return isObject(items) ? value.map((item) => dropNullOptionals(item, items, root)) : value;
  }
  if (!isObject(value) || !isObject(node.properties)) return value;
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    const sub = node.properties[key];
    if (!isObject(sub)) {
      out[key] = item;
      continue;
    }
    if (item === null && !required.has(key) && !allowsNull(resolve(sub, root))) continue;
    out[key] = dropNullOptionals(item, sub, root);
  }
  return out;
}

/**
 * What a dialect sends for a schema that asks for strict mode (`wanted`): the strict form, or
 * the schema unchanged with `strict: false` and a warning saying why.
 */
export function strictOrLoose(
  schema: Json,
  wanted: boolean,
  setting: string,
  warn: ((warning: { setting: string; message: string }) => void) | undefined,
): { schema: Json; strict: boolean } {
  if (!wanted) return { schema, strict: false };
  const result = strictJsonSchema(schema);
  if (result.strict) return result;
  warn?.({ setting, message: `Strict schema adherence was turned off (strict: false): ${result.reason}` });
  return { schema, strict: false };
}
