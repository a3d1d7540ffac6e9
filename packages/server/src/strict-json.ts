/**
 * Request JSON read strictly at the edge. JSON.parse accepts text that has no single meaning
 * as data, and the signed thread must mean one thing (the canonical JSON a signature covers is
 * injective only over real JSON values, see canonical-json.ts in @parlance/engine):
 *
 * - a number that overflows (`1e999` parses to Infinity, which JSON has no word for: a signed
 *   `null` could come back as `1e999` and run a tool with `limit: Infinity`);
 * - `-0` (JSON.stringify writes it `0`: two texts, one canonical form);
 * - a string or key with a lone surrogate (`"\ud800"`: not Unicode text, it cannot be
 *   written as UTF-8 unchanged);
 * - an object with the same key twice (JSON.parse keeps the last one; another parser, e.g.
 *   a tool's, may keep the first: RFC 8259 §4 says the names SHOULD be unique).
 *
 * Each is refused with a typed 400 (`invalid_request`) naming where it is. Checked in one pass
 * over text JSON.parse accepted; strings are decoded only when they hold an escape.
 */
import { ParlanceError } from '@parlance/protocol';

/**
 * Whether JSON text nests deeper than `max` arrays and objects, read in one pass without
 * parsing (a body nested 5,000 deep parses fine, then overflows the stack of whatever walks it).
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

type Path = (string | number)[];

/** A lone (unpaired) UTF-16 surrogate. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

interface Frame {
  /** The keys seen so far (objects), or undefined (arrays). */
  keys: Set<string> | undefined;
  /** The current key, or index. */
  at: string | number;
  /** In an object: whether the next string is a key. */
  expectKey: boolean;
}

function refused(stack: readonly Frame[], message: string): ParlanceError {
  const path: Path = stack.map((f) => f.at);
  return new ParlanceError('invalid_request', message, { status: 400, path, retryable: false });
}

/** Where the string starting at `from` (a `"`) ends: the index of its closing quote. */
function stringEnd(text: string, from: number): number {
  let i = from + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    const backslash = text.indexOf('\\', i);
    if (backslash >= 0 && backslash < quote) {
      i = backslash + 2;
      continue;
    }
    return quote;
  }
}

/**
 * The first value in JSON text (that JSON.parse accepts) which has no single meaning as data,
 * as a typed 400 error with its path; undefined when there is none.
 *
 * @example
 * jsonHazard('{"limit":1e999}')?.message; // 'The number 1e999 at limit is out of range: JSON has no Infinity'
 * jsonHazard('{"a":1,"a":2}')?.code; // 'invalid_request'
 */
export function jsonHazard(text: string): ParlanceError | undefined {
  const stack: Frame[] = [];
  const where = () => (stack.length ? ` at ${stack.map((f) => f.at).join('.')}` : '');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    switch (c) {
      case 123 /* { */:
        stack.push({ keys: new Set(), at: '', expectKey: true });
        break;
      case 91 /* [ */:
        stack.push({ keys: undefined, at: 0, expectKey: false });
        break;
      case 125 /* } */:
      case 93 /* ] */:
        stack.pop();
        break;
      case 44 /* , */:
        if (top?.keys) top.expectKey = true;
        else if (top) top.at = (top.at as number) + 1;
        break;
      case 34 /* " */: {
        const end = stringEnd(text, i);
        const raw = text.slice(i, end + 1);
        // Text decoded from bytes holds no lone surrogate; only an escape (`\ud800`) can make one.
        const value = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top?.keys && top.expectKey) {
          if (top.keys.has(value)) {
            top.at = value;
            return refused(stack, `The key ${JSON.stringify(value)}${where()} appears twice in one object`);
          }
          top.keys.add(value);
          top.at = value;
          top.expectKey = false;
          if (LONE_SURROGATE.test(value)) return refused(stack, `The key${where()} holds a lone surrogate (\\ud800-\\udfff): it is not Unicode text`);
        } else if (LONE_SURROGATE.test(value)) {
          return refused(stack, `The string${where()} holds a lone surrogate (\\ud800-\\udfff): it is not Unicode text`);
        }
        i = end;
        break;
      }
      default:
        if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
          NUMBER.lastIndex = i;
          const literal = NUMBER.exec(text)![0];
          const n = Number(literal);
          if (!Number.isFinite(n)) return refused(stack, `The number ${literal.slice(0, 40)}${where()} is out of range: JSON has no Infinity`);
          if (Object.is(n, -0)) return refused(stack, `The number ${literal.slice(0, 40)}${where()} is -0: send 0`);
          i += literal.length - 1;
        }
    }
  }
  return undefined;
}

/**
 * A request body's JSON, read at the edge: nesting deeper than `maxDepth`, text that is not
 * JSON, and every `jsonHazard` are refused with a typed 400 (`invalid_request`).
 *
 * @example
 * const json = parseRequestJson(await request.text(), 64); // throws ParlanceError (status 400)
 */
export function parseRequestJson(text: string, maxDepth: number): unknown {
  if (jsonDepthExceeds(text, maxDepth)) {
    throw new ParlanceError('invalid_request', `The body nests arrays and objects deeper than ${maxDepth} levels`, { status: 400, retryable: false });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ParlanceError('invalid_request', `The body is not valid JSON: ${(error as Error).message}`, { status: 400, retryable: false });
  }
  const hazard = jsonHazard(text);
  if (hazard) throw hazard;
  return json;
}
