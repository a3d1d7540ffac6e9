/**
 * One byte string per JSON value, whatever order its keys came in: what a signature
 * covers must not change when a browser stores, reloads and re-sends a thread
 * (JSON.stringify keeps insertion order, and a store may reorder keys). Keys are
 * sorted by UTF-16 code units (as RFC 8785, JSON Canonicalization Scheme, does);
 * numbers and strings are written by JSON.stringify, which round-trips them.
 *
 * It is injective: two different JSON values never share a canonical form. So the values
 * JSON.stringify would fold into another are refused with a typed error instead of written:
 * a non-finite number (JSON has no `Infinity`; JSON.stringify writes it as `null`, so a signed
 * `null` could come back as `1e999`), `-0` (written `0`), a string or key with a lone surrogate
 * (not Unicode text: it cannot be sent as UTF-8 unchanged), a bigint or a symbol.
 * `undefined` (an absent input, not a JSON value) is written as `null`, and an object's
 * `undefined` or function members are left out, as JSON.stringify does.
 */
import { ParlanceError } from '@parlance/protocol';

/** A lone (unpaired) UTF-16 surrogate. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether a string is well-formed Unicode (no lone surrogate): `String.prototype.isWellFormed`
 * where the runtime has it.
 *
 * @example
 * isWellFormedText('\ud83d\ude00'); // true
 * isWellFormedText('\ud800'); // false
 */
export function isWellFormedText(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(text) : !LONE_SURROGATE.test(text);
}

type Path = (string | number)[];

function notJson(path: Path, what: string): ParlanceError {
  const at = path.length ? ` at ${path.map((p) => `[${JSON.stringify(p)}]`).join('')}` : '';
  return new ParlanceError('invalid_request', `${what}${at} is not a JSON value`, { status: 400, path: [...path], retryable: false });
}

function write(value: unknown, path: Path): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      if (!isWellFormedText(value)) throw notJson(path, 'A string with a lone surrogate');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw notJson(path, `The number ${value}`);
      if (Object.is(value, -0)) throw notJson(path, 'The number -0');
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          out += (i ? ',' : '') + write(value[i], path);
          path.pop();
        }
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined && typeof record[k] !== 'function')
        .sort();
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        path.push(key);
        if (!isWellFormedText(key)) throw notJson(path, 'A key with a lone surrogate');
        out += `${i ? ',' : ''}${JSON.stringify(key)}:${write(record[key], path)}`;
        path.pop();
      }
      return `${out}}`;
    }
    default:
      throw notJson(path, `A ${typeof value}`);
  }
}

/**
 * The canonical JSON text of a value; throws a `ParlanceError` (`invalid_request`, with the
 * path) for a value that has no JSON form of its own (non-finite number, -0, lone surrogate).
 *
 * @example
 * canonicalJson({ b: 1, a: [true, 'x'] }); // '{"a":[true,"x"],"b":1}'
 * canonicalJson({ limit: Infinity }); // throws: The number Infinity at ["limit"] is not a JSON value
 */
export function canonicalJson(value: unknown): string {
  return write(value, []);
}
