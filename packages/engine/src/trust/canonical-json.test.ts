import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, isWellFormedText } from './canonical-json.ts';

/** Arbitrary JSON values as JSON.parse gives them: no -0, every string well-formed. */
const jsonValue = fc.jsonValue({ noUnicodeString: false, maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/** What a browser could put in a thread after JSON.parse: any double (1e999 is Infinity, -0), any UTF-16 string. */
const { value: browserValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, -0, 0),
    fc.string({ unit: 'binary' }),
    fc.constantFrom('\ud800', '\udc00', 'a\ud83d'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 3 }), tie('value'), { maxKeys: 4 }),
  ),
}));

function canonicalOrRefused(value: unknown): string | undefined {
  try {
    return canonicalJson(value);
  } catch (error) {
    expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
    return undefined;
  }
}

/** Deep equality of JSON values (key order ignored). */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return sameJson(ka, kb) && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return Object.is(a, b);
}

describe('canonicalJson', () => {
  it('is the same for the same value whatever the key order, and survives a JSON round trip', () => {
    const a = JSON.parse('{"b":[1,{"y":2,"x":"é"}],"a":null,"c":{"__proto__":1}}');
    const b = JSON.parse('{"c":{"__proto__":1},"a":null,"b":[1,{"x":"é","y":2}]}');
    expect(canonicalJson(a)).toBe('{"a":null,"b":[1,{"x":"é","y":2}],"c":{"__proto__":1}}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
    expect(canonicalJson(JSON.parse(JSON.stringify(a)))).toBe(canonicalJson(a));
  });

  it('tells different values apart', () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson(['a,b'])).not.toBe(canonicalJson(['a', 'b']));
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('is injective: distinct JSON values never share a canonical string (property)', () => {
    fc.assert(
      fc.property(jsonValue, jsonValue, (a, b) => {
        fc.pre(!sameJson(a, b));
        expect(canonicalJson(a)).not.toBe(canonicalJson(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('is injective over what a browser can send too: a value with no JSON form is refused, never folded into another (property)', () => {
    fc.assert(
      fc.property(browserValue, browserValue, (a, b) => {
        const ca = canonicalOrRefused(a);
        const cb = canonicalOrRefused(b);
        if (ca !== undefined && cb !== undefined && !sameJson(a, b)) expect(ca).not.toBe(cb);
      }),
      { numRuns: 3000 },
    );
    // The pair from the issue: a signed null and the 1e999 it came back as.
    expect(canonicalJson({ limit: null })).not.toBe(canonicalOrRefused({ limit: JSON.parse('1e999') }));
  });

  it('is a function of the value: a key-shuffled JSON round trip gives the same string, and it parses back to the value (property)', () => {
    const shuffled = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(shuffled);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, shuffled(x)]));
      return v;
    };
    fc.assert(
      fc.property(jsonValue, (v) => {
        const text = canonicalJson(v);
        expect(canonicalJson(shuffled(v))).toBe(text);
        expect(sameJson(JSON.parse(text), v)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses, with the path, every value JSON.stringify would fold into another', () => {
    const folded: [string, unknown, (string | number)[]][] = [
      ['Infinity (1e999)', { limit: JSON.parse('1e999') }, ['limit']],
      ['-Infinity', [1, -Infinity], [1]],
      ['NaN', { a: { b: Number.NaN } }, ['a', 'b']],
      ['-0', { x: [0, -0] }, ['x', 1]],
      ['a lone high surrogate', { s: 'a\ud800' }, ['s']],
      ['a lone low surrogate', ['\udc00b'], [0]],
      ['a key with a lone surrogate', { '\ud83d': 1 }, ['\ud83d']],
      ['a bigint', { n: 1n }, ['n']],
      ['a symbol', [Symbol('x')], [0]],
    ];
    for (const [name, value, path] of folded) {
      expect(() => canonicalJson(value), name).toThrow(expect.objectContaining({ code: 'invalid_request', status: 400, path }));
    }
    expect(canonicalJson({ emoji: '\ud83d\ude00', zero: 0 })).toBe('{"emoji":"😀","zero":0}');
  });

  it('isWellFormedText finds a lone surrogate anywhere', () => {
    for (const bad of ['\ud800', 'x\udfff', '\udc00\ud800', 'ok\ud83d']) expect(isWellFormedText(bad), JSON.stringify(bad)).toBe(false);
    for (const good of ['', 'plain', '\ud83d\ude00', 'é中']) expect(isWellFormedText(good)).toBe(true);
  });
});
