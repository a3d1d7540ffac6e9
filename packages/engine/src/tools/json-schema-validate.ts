/**
 * A small JSON Schema checker for plain-JSON-Schema tools and outputs: the keywords
 * models are given in practice (type, properties, required, additionalProperties,
 * items, enum, const, anyOf/oneOf/allOf, string and number bounds). It reports
 * problems as readable strings the model can act on; unknown keywords are ignored,
 * never rejected. Full validation belongs to a schema library (Standard Schema).
 * Keywords: https://json-schema.org/draft/2020-12/json-schema-validation
 */
import type { JSONSchema } from '@parlance/protocol';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

function at(path: string): string {
  return path === '' ? 'value' : path;
}

export function validateJsonSchema(schema: JSONSchema, value: unknown, path = ''): string[] {
  const problems: string[] = [];
  const s = schema as Record<string, unknown>;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => matchesType(value, t))) {
      return [`${at(path)}: expected ${types.join(' or ')}, got ${typeOf(value)}`];
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    problems.push(`${at(path)}: must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) {
    problems.push(`${at(path)}: must be ${JSON.stringify(s.const)}`);
  }
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const options = (s.anyOf ?? s.oneOf) as JSONSchema[];
    if (!options.some((option) => validateJsonSchema(option, value, path).length === 0)) {
      problems.push(`${at(path)}: does not match any allowed shape`);
    }
  }
  if (Array.isArray(s.allOf)) for (const part of s.allOf as JSONSchema[]) problems.push(...validateJsonSchema(part, value, path));
  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && value.length < s.minLength) problems.push(`${at(path)}: shorter than ${s.minLength}`);
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) problems.push(`${at(path)}: longer than ${s.maxLength}`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) {
      problems.push(`${at(path)}: does not match ${s.pattern}`);
    }
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) problems.push(`${at(path)}: less than ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) problems.push(`${at(path)}: greater than ${s.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) problems.push(`${at(path)}: fewer than ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) problems.push(`${at(path)}: more than ${s.maxItems} items`);
    if (typeof s.items === 'object' && s.items !== null) {
      value.forEach((item, i) => {
        problems.push(...validateJsonSchema(s.items as JSONSchema, item, `${path}[${i}]`));
      });
    }
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, JSONSchema>;
    for (const key of (s.required ?? []) as string[]) {
      if (!(key in object)) problems.push(`${path ? `${path}.` : ''}${key}: required`);
    }
    for (const [key, child] of Object.entries(object)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key in properties) problems.push(...validateJsonSchema(properties[key]!, child, childPath));
      else if (s.additionalProperties === false) problems.push(`${childPath}: not allowed`);
      else if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null) {
        problems.push(...validateJsonSchema(s.additionalProperties as JSONSchema, child, childPath));
      }
    }
  }
  return problems;
}
