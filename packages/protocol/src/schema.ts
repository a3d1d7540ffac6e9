/**
 * Runtime schemas for messages and threads. They check what a stored or received
 * thread must hold; the TypeScript types in message.ts are the source of truth.
 *
 * Hand-written rather than zod/mini: zod/mini alone is ~6 KB gzipped in the browser
 * bundle, half the 12 KB budget of @parlance/react + client + protocol. The shape
 * of the API and of the results is zod's (`safeParse` -> `{ success, data }` or
 * `{ success: false, error: { issues: [{ path, message }] } }`), unknown keys are
 * stripped, and every issue names its path, so thread.ts reads both the same way.
 */
import type { Message, Part } from './message.ts';
import type { Thread } from './thread-shape.ts';
import { PENDING_KINDS } from './pause.ts';

export interface SchemaIssue {
  path: (string | number)[];
  message: string;
}

export type SafeParseResult<T> = { success: true; data: T } | { success: false; error: { issues: SchemaIssue[] } };

export interface Schema<T> {
  safeParse(value: unknown): SafeParseResult<T>;
}

type Path = (string | number)[];
/** Checks `value`, pushing issues; returns the cleaned value (unknown keys stripped). */
type Check = (value: unknown, path: Path, issues: SchemaIssue[]) => unknown;
type Shape = Record<string, Check | { optional: Check }>;

const INVALID = 'Invalid input';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const fail = (path: Path, issues: SchemaIssue[], message = INVALID): undefined => {
  issues.push({ path, message });
  return undefined;
};

const typed =
  (type: string): Check =>
  (v, path, issues) =>
    typeof v === type ? v : fail(path, issues);

const string = typed('string');
const number = typed('number');
const boolean = typed('boolean');
/** Any value, but the key must be present (zod's `z.unknown()` inside an object). */
const any: Check = (v) => v;

const oneOf =
  (...values: string[]): Check =>
  (v, path, issues) =>
    values.includes(v as string) ? v : fail(path, issues);

const record: Check = (v, path, issues) => (isObject(v) ? v : fail(path, issues));

const array =
  (item: Check): Check =>
  (v, path, issues) =>
    Array.isArray(v) ? v.map((x, i) => item(x, [...path, i], issues)) : fail(path, issues);

const optional = (check: Check) => ({ optional: check });

function object(shape: Shape, refine?: (v: Record<string, unknown>) => string | undefined): Check {
  return (v, path, issues) => {
    if (!isObject(v)) return fail(path, issues);
    const before = issues.length;
    const out: Record<string, unknown> = {};
    for (const key in shape) {
      const spec = shape[key]!;
      const value = v[key];
      if (typeof spec !== 'function') {
        if (value !== undefined) out[key] = spec.optional(value, [...path, key], issues);
      } else if (!(key in v)) fail([...path, key], issues);
      else out[key] = spec(value, [...path, key], issues);
    }
    const problem = issues.length === before ? refine?.(out) : undefined;
    if (problem !== undefined) fail(path, issues, problem);
    return out;
  };
}

function schema<T>(check: Check): Schema<T> {
  return {
    safeParse(value) {
      const issues: SchemaIssue[] = [];
      const data = check(value, [], issues);
      return issues.length ? { success: false, error: { issues } } : { success: true, data: data as T };
    },
  };
}

const providerState = optional(record);

const parts: Record<Part['type'], Check> = {
  text: object({ type: string, text: string, providerState }),
  reasoning: object({ type: string, text: string, signature: optional(string), redacted: optional(boolean), providerState }),
  'tool-call': object({
    type: string,
    id: string,
    name: string,
    input: any,
    providerExecuted: optional(boolean),
    signature: optional(string),
    providerState,
  }),
  'tool-result': object({
    type: string,
    toolCallId: string,
    name: string,
    output: any,
    isError: optional(boolean),
    providerExecuted: optional(boolean),
    signature: optional(string),
    providerState,
  }),
  file: object(
    {
      type: string,
      mediaType: string,
      filename: optional(string),
      data: optional(string),
      url: optional(string),
      ref: optional(object({ id: string, mediaType: string, size: number, sha256: string, signature: string })),
      providerState,
    },
    (part) =>
      [part.data, part.url, part.ref].filter((v) => v !== undefined).length === 1 ? undefined : 'a file part holds exactly one of data, url or ref',
  ),
  source: object({ type: string, url: string, title: optional(string), providerState }),
  summary: object({ type: string, text: string, through: string, providerState }),
  compaction: object({ type: string, text: string, providerState }),
};

/** Dispatches on `type`, like zod's discriminatedUnion: an unknown type is an issue at `type`. */
const part: Check = (v, path, issues) => {
  if (!isObject(v)) return fail(path, issues);
  const check = Object.hasOwn(parts, v.type as string) ? parts[v.type as Part['type']] : undefined;
  return check ? check(v, path, issues) : fail([...path, 'type'], issues);
};

/**
 * Validates one message part (zod-like `safeParse`, no dependency).
 *
 * @example
 * const result = partSchema.safeParse(untrusted);
 * if (!result.success) console.log(result.error.issues[0]?.path);
 */
export const partSchema: Schema<Part> = schema(part);

/**
 * Validates a message from an untrusted source (zod-like `safeParse`, no dependency).
 *
 * @example
 * const result = messageSchema.safeParse(body.message);
 * if (!result.success) return Response.json({ issues: result.error.issues }, { status: 400 });
 */
export const messageSchema: Schema<Message> = schema(
  object({
    id: string,
    role: oneOf('system', 'user', 'assistant', 'tool'),
    parts: array(part),
    createdAt: optional(string),
    metadata: optional(record),
    provenance: optional(object({ provider: string, model: string, dialect: string })),
    pause: optional(
      object({
        waitingFor: array(
          object({ kind: oneOf(...PENDING_KINDS), toolCallId: string, name: string, input: optional(any), question: optional(string) }),
        ),
        signature: optional(string),
      }),
    ),
    error: optional(
      object({
        code: string,
        message: string,
        retryable: boolean,
        status: optional(number),
        retryAfterMs: optional(number),
        path: optional(array(any)),
      }),
    ),
  }),
);

export const threadHeaderSchema: Schema<Omit<Thread, 'messages'> & { messages: unknown[] }> = schema(
  object({ version: number, id: string, messages: array(any), metadata: optional(record) }),
);
