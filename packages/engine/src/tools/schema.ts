/**
 * Schemas for tool inputs and structured output: any Standard Schema (zod 4,
 * valibot, arktype) or a plain JSON Schema object. The engine needs two things
 * from one: JSON Schema for the wire, and a validator for what the model sent.
 *
 * Standard Schema: https://standardschema.dev. Version 1.1 adds `~standard.jsonSchema`
 * (Standard JSON Schema); zod 4 implements it. A library that does not (valibot
 * 1.x without @valibot/to-json-schema) needs an explicit `jsonSchema`.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { dropNullOptionals } from '@parlance/dialects';
import { ParlanceError, type JSONSchema } from '@parlance/protocol';
import { validateJsonSchema } from './json-schema-validate.ts';

/**
 * What the engine accepts as a schema.
 *
 * @example
 * const input: SchemaLike = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
 */
export type SchemaLike = StandardSchemaV1 | JSONSchema;

/**
 * The parsed value a schema produces (unknown for plain JSON Schema).
 *
 * @example
 * type City = InferSchemaOutput<typeof citySchema>; // { city: string } for z.object({ city: z.string() })
 */
export type InferSchemaOutput<S> = S extends StandardSchemaV1<unknown, infer O> ? O : unknown;
/**
 * What the model must send (unknown for plain JSON Schema).
 *
 * @example
 * type Sent = InferSchemaInput<typeof schema>;
 */
export type InferSchemaInput<S> = S extends StandardSchemaV1<infer I, unknown> ? I : unknown;

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * 
 *
 * @example
 * const { jsonSchema, validate } = resolveSchema(schema, 'output');
 */
export interface ResolvedSchema<T = unknown> {
  jsonSchema: JSONSchema;
  validate(value: unknown): Promise<ValidationResult<T>>;
}

/**
 * Whether a value is a Standard Schema (zod, valibot, arktype, ...).
 *
 * @example
 * const jsonSchema = isStandardSchema(input) ? undefined : input;
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (typeof value !== 'object' && typeof value !== 'function') return false;
  if (value === null) return false;
  const std = (value as { '~standard'?: { validate?: unknown } })['~standard'];
  return typeof std === 'object' && std !== null && typeof std.validate === 'function';
}

function hasJsonSchema(value: StandardSchemaV1): value is StandardSchemaV1 & StandardJSONSchemaV1 {
  const converter = (value['~standard'] as { jsonSchema?: { input?: unknown } }).jsonSchema;
  return typeof converter === 'object' && converter !== null && typeof converter.input === 'function';
}

/**
 * Providers reject `$schema` (Gemini) and gain nothing from it. Strict mode (OpenAI) needs every
 * object closed and every property required: the dialects rewrite the schema for the wire
 * (`strictJsonSchema`, optional properties made nullable) and `validate` drops the `null`s
 * that rewrite makes the model send for optional properties (`dropNullOptionals`), so a zod
 * `.optional()` field validates.
 */
function clean(schema: JSONSchema): JSONSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function formatPath(path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined): string {
  if (!path || path.length === 0) return '';
  return path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
}

export function formatIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .map((issue) => {
      const at = formatPath(issue.path);
      return at ? `${at}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/**
 * Resolves a schema once. `what` names it in errors ("tool weather", "output").
 * `explicit` is a JSON Schema that wins over any derived one.
 *
 * @example
 * const { jsonSchema, validate } = resolveSchema(z.object({ city: z.string() }), 'tool weather');
 * const checked = await validate({ city: 'Oslo' }); // { ok: true, value: { city: 'Oslo' } }
 */
export function resolveSchema<S extends SchemaLike>(schema: S, what: string, explicit?: JSONSchema): ResolvedSchema<InferSchemaOutput<S>> {
  if (isStandardSchema(schema)) {
    let jsonSchema = explicit;
    if (!jsonSchema) {
      if (!hasJsonSchema(schema)) {
        throw new ParlanceError(
          'invalid_request',
          `The schema of ${what} (${schema['~standard'].vendor}) cannot produce JSON Schema; pass \`jsonSchema\` next to it`,
        );
      }
      try {
        // The model produces the schema's *input*; the validator turns it into the output.
        jsonSchema = schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
      } catch (cause) {
        throw new ParlanceError('invalid_request', `The schema of ${what} cannot be converted to JSON Schema: ${String(cause)}`, {
          cause,
        });
      }
    }
    return {
      jsonSchema: clean(jsonSchema),
      async validate(value) {
        const result = await schema['~standard'].validate(dropNullOptionals(value, jsonSchema));
        if (result.issues) return { ok: false, message: formatIssues(result.issues) };
        return { ok: true, value: result.value as InferSchemaOutput<S> };
      },
    };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ParlanceError('invalid_request', `The schema of ${what} must be a Standard Schema or a JSON Schema object`);
  }
  const jsonSchema = clean(explicit ?? (schema as JSONSchema));
  return {
    jsonSchema,
    async validate(value) {
      const given = dropNullOptionals(value, jsonSchema);
      const problems = validateJsonSchema(jsonSchema, given);
      if (problems.length) return { ok: false, message: problems.join('; ') };
      return { ok: true, value: given as InferSchemaOutput<S> };
    },
  };
}
