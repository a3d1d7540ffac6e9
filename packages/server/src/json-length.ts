/**
 * The length of `JSON.stringify(value)` without building the string: a run store counts the
 * bytes of every event it keeps, and the SSE frame serializes each event anyway, so counting
 * must not serialize it a second time (most events are deltas: a few short strings). Exact for
 * the values events are made of (plain objects, arrays, strings, finite numbers, booleans,
 * null; `undefined` members left out as JSON leaves them).
 */
// Characters JSON escapes: `"`, `\`, control characters, and UTF-16 surrogates (a lone one is
// written as \uXXXX; a pair is tested below, as it is written as it is).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes
const NEEDS_SCAN = /["\\\u0000-\u001f\ud800-\udfff]/;

function stringLength(s: string): number {
  if (!NEEDS_SCAN.test(s)) return s.length + 2;
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) n += 2;
    else if (c < 0x20) n += 6;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) n += 6;
    else n += 1;
  }
  return n;
}

export function jsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringLength(value);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = 2 + Math.max(0, value.length - 1);
        for (const item of value) n += item === undefined || typeof item === 'function' ? 4 : jsonLength(item);
        return n;
      }
      let n = 2;
      let members = 0;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function') continue;
        n += stringLength(key) + 1 + jsonLength(item);
        members++;
      }
      return n + Math.max(0, members - 1);
    }
    default:
      // bigint throws in JSON.stringify; undefined and functions are left out by the caller.
      return String(JSON.stringify(value) ?? '').length;
  }
}
