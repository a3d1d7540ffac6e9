/**
 * One byte string per JSON value, whatever order its keys came in: what a signature
 * covers must not change when a browser stores, reloads and re-sends a thread
 * (JSON.stringify keeps insertion order, and a store may reorder keys). Keys are
 * sorted by UTF-16 code units (as RFC 8785, JSON Canonicalization Scheme, does);
 * numbers and strings are written by JSON.stringify, which round-trips them.
 * `undefined` (an absent input) is written as `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined && typeof record[k] !== 'function')
        .sort();
      let out = '{';
      for (let i = 0; i < keys.length; i++) out += `${i ? ',' : ''}${JSON.stringify(keys[i])}:${canonicalJson(record[keys[i]!])}`;
      return `${out}}`;
    }
    default:
      return 'null';
  }
}
