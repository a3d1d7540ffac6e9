/**
 * JSON Schema validation for plain-JSON-Schema tools and outputs (MCP tools, hand-written
 * schemas), by `@cfworker/json-schema`: complete drafts 4 to 2020-12 (`$ref`/`$defs`, `format`,
 * `multipleOf`, `uniqueItems`, `not`, `if`/`then`/`else`, `dependentRequired`, ...), no `eval` or
 * `new Function`, so it runs on Workers and other edge runtimes where ajv's compiled validators
 * cannot. A hand-written checker had ignored every keyword it did not know, so an MCP tool whose
 * schema used `$ref` went unchecked. Problems come back as `path: message` strings a model can act on.
 * Keywords: https://json-schema.org/draft/2020-12/json-schema-validation
 */
import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import type { JSONSchema } from '@parlance/protocol';

/** Keywords whose error only says that something below failed: the error below says what. */
const WRAPPERS = new Set(['properties', 'items', 'prefixItems', 'additionalProperties', 'patternProperties', 'allOf', '$ref', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'then', 'else', 'if', 'propertyNames']);

/** `#/a/0/b` -> `a[0].b` (`value` for the root). */
function pathOf(instanceLocation: string): string {
  const parts = instanceLocation
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts.length === 0) return 'value';
  return parts.map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

function message(unit: OutputUnit): string {
  // "Instance does not have required property "name"." -> "name: required"
  const missing = unit.keyword === 'required' ? /required property "([^"]+)"/.exec(unit.error)?.[1] : undefined;
  if (missing !== undefined) {
    const base = pathOf(unit.instanceLocation);
    return `${base === 'value' ? '' : `${base}.`}${missing}: required`;
  }
  return `${pathOf(unit.instanceLocation)}: ${unit.error.replace(/\.$/, '')}`;
}

/** A schema's validator, compiled once. */
const validators = new WeakMap<object, Validator>();

/**
 * Problems of `value` against `schema` (draft 2020-12 unless the schema's `$schema` names another),
 * as readable strings; empty when it is valid.
 */
export function validateJsonSchema(schema: JSONSchema, value: unknown): string[] {
  let validator = validators.get(schema);
  if (!validator) {
    const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
    const draft = declared.includes('draft-04') ? '4' : declared.includes('draft-07') ? '7' : declared.includes('2019-09') ? '2019-09' : '2020-12';
    validator = new Validator(schema as Schema, draft, false);
    validators.set(schema, validator);
  }
  const result = validator.validate(value);
  if (result.valid) return [];
  const leaves = result.errors.filter((unit) => !WRAPPERS.has(unit.keyword));
  return [...new Set((leaves.length ? leaves : result.errors).map(message))];
}
