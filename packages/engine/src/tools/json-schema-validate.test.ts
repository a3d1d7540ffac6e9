import { describe, expect, it } from 'vitest';
import { validateJsonSchema } from './json-schema-validate.ts';

// Each keyword family the hand-written checker ignored (an invalid value passed unchecked),
// beside the ones it had: one valid and one invalid value each, and the message a model reads.
const CASES: [string, Record<string, unknown>, unknown, unknown, RegExp][] = [
  ['type', { type: 'string' }, 'a', 1, /^value: .*type/i],
  ['required', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, { name: 'a' }, {}, /^name: required$/],
  ['nested path', { type: 'object', properties: { a: { type: 'array', items: { type: 'object', properties: { b: { type: 'integer' } } } } } }, { a: [{ b: 1 }] }, { a: [{ b: 1.5 }] }, /^a\[0\]\.b: /],
  ['$ref / $defs', { $defs: { city: { type: 'string', minLength: 2 } }, type: 'object', properties: { city: { $ref: '#/$defs/city' } } }, { city: 'Paris' }, { city: 'P' }, /^city: /],
  ['definitions (draft 7 $ref)', { $schema: 'http://json-schema.org/draft-07/schema#', definitions: { n: { type: 'number' } }, properties: { n: { $ref: '#/definitions/n' } } }, { n: 1 }, { n: 'x' }, /^n: /],
  ['format: email', { type: 'string', format: 'email' }, 'a@example.com', 'not an email', /format/i],
  ['format: date-time', { type: 'string', format: 'date-time' }, '2026-11-26T07:00:00Z', 'yesterday', /format/i],
  ['format: uuid', { type: 'string', format: 'uuid' }, '123e4567-e89b-12d3-a456-426614174000', 'nope', /format/i],
  ['multipleOf', { type: 'number', multipleOf: 0.5 }, 1.5, 1.3, /multiple/i],
  ['uniqueItems', { type: 'array', uniqueItems: true }, [1, 2], [1, 1], /unique|duplicate/i],
  ['not', { not: { type: 'string' } }, 1, 'a', /^value: /],
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword under test.
  ['if / then', { if: { properties: { kind: { const: 'a' } } }, then: { required: ['x'] } }, { kind: 'a', x: 1 }, { kind: 'a' }, /^x: required$/],
  ['exclusiveMinimum', { type: 'number', exclusiveMinimum: 0 }, 1, 0, /^value: /],
  ['anyOf', { anyOf: [{ type: 'string' }, { type: 'number' }] }, 1, true, /^value: /],
  ['oneOf', { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 0 }] }, -1, 1, /^value: /],
  ['additionalProperties: false', { type: 'object', properties: { a: {} }, additionalProperties: false }, { a: 1 }, { a: 1, b: 2 }, /^value: |^b: /],
  ['enum', { enum: ['a', 'b'] }, 'a', 'c', /^value: /],
  ['const', { const: 3 }, 3, 4, /^value: /],
  ['pattern', { type: 'string', pattern: '^[a-z]+$' }, 'abc', 'ABC', /^value: /],
  ['dependentRequired', { dependentRequired: { card: ['cvc'] } }, { card: 1, cvc: 2 }, { card: 1 }, /^value: /],
];

describe('validateJsonSchema', () => {
  it.each(CASES)('%s: accepts a valid value and names the problem of an invalid one', (_name, schema, valid, invalid, pattern) => {
    expect(validateJsonSchema(schema, valid)).toEqual([]);
    const problems = validateJsonSchema(schema, invalid);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.some((p) => pattern.test(p)), problems.join('; ')).toBe(true);
  });

  it('reports every problem at once, not only the first', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a', 'b', 'c'] };
    expect(validateJsonSchema(schema, { a: 1, b: 'x' })).toEqual(expect.arrayContaining(['c: required', expect.stringMatching(/^a: /), expect.stringMatching(/^b: /)]));
  });
});
