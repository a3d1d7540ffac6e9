/**
 * Checks one structured-output answer against its schema and reports what is wrong
 * as data (zod's "errors are data"): `generate()` has no retry loop to feed the
 * problems back to the model, so it hands them to the caller instead.
 *
 * Standard Schema issues keep their path (https://standardschema.dev: `issues[].path`);
 * a plain JSON Schema is checked by the engine's small checker, whose problems are
 * readable strings that already name the path.
 */
import { ParlanceError, type JSONSchema, type Response } from '@parlance/protocol';
import { isStandardSchema, type SchemaLike } from '../tools/schema.ts';
import { validateJsonSchema } from '../tools/json-schema-validate.ts';
import { parseOutputText } from './structured-output.ts';

/**
 * 
 *
 * @example
 * for (const issue of error.issues) console.log(issue.path?.join('.'), issue.message);
 */
export interface OutputIssue {
  message: string;
  /** Where in the object (Standard Schema issues only). */
  path?: (string | number)[];
}

/**
 * The answer of a call with `output` is not JSON, or not the schema's. Its `code` is `invalid_response`.
 *
 * @example
 * try { await engine.generate({ model, prompt, output: schema }); } catch (e) { if (e instanceof StructuredOutputError) console.log(e.issues); }
 */
export class StructuredOutputError extends ParlanceError {
  readonly issues: OutputIssue[];
  /** The response the model gave, as received (its text holds the answer). */
  readonly response: Response;

  constructor(issues: OutputIssue[], response: Response) {
    const text = issues.map((i) => (i.path?.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
    super('invalid_response', `The structured output did not match the schema: ${text}`, { retryable: false });
    this.issues = issues;
    this.response = response;
  }
}

export type OutputCheck = { ok: true; value: unknown } | { ok: false; issues: OutputIssue[] };

/** Parses the answer's text (code fences stripped) and validates it; a Standard Schema's output value is returned (transforms applied). */
export async function checkOutputText(schema: SchemaLike, jsonSchema: JSONSchema, text: string): Promise<OutputCheck> {
  const parsed = parseOutputText(text);
  if (!parsed.ok) return { ok: false, issues: [{ message: parsed.message }] };
  if (isStandardSchema(schema)) {
    const result = await schema['~standard'].validate(parsed.value);
    if (!result.issues) return { ok: true, value: result.value };
    return {
      ok: false,
      issues: result.issues.map((issue) => {
        const out: OutputIssue = { message: issue.message };
        if (issue.path?.length) out.path = issue.path.map((p) => toKey(typeof p === 'object' ? p.key : p));
        return out;
      }),
    };
  }
  const problems = validateJsonSchema(jsonSchema, parsed.value);
  return problems.length ? { ok: false, issues: problems.map((message) => ({ message })) } : { ok: true, value: parsed.value };
}

function toKey(key: PropertyKey): string | number {
  return typeof key === 'number' ? key : String(key);
}
