import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonHazard, parseRequestJson } from './strict-json.ts';

describe('parseRequestJson', () => {
  const hazards: [string, string, (string | number)[]][] = [
    ['an overflowing number (Infinity)', '{"limit":1e999}', ['limit']],
    ['an overflowing negative number', '{"a":[1,-1E+400]}', ['a', 1]],
    ['-0', '{"x":-0}', ['x']],
    ['-0.0e7', '[0,-0.0e7]', [1]],
    ['a negative underflow to -0', '{"t":{"u":-1e-999}}', ['t', 'u']],
    ['a lone high surrogate', '{"s":"a\\ud800"}', ['s']],
    ['a lone low surrogate', '["\\udc00b"]', [0]],
    ['a reversed pair', '{"s":"\\udc00\\ud800"}', ['s']],
    ['a key with a lone surrogate', '{"\\ud83d":1}', ['\ud83d']],
    ['a duplicate key', '{"a":1,"a":2}', ['a']],
    ['a duplicate key spelled with an escape', '{"thread":{"id":"t","\\u0069d":"u"}}', ['thread', 'id']],
    ['a duplicate key deep in an array', '{"m":[{"p":[1,{"k":1,"j":2,"k":3}]}]}', ['m', 0, 'p', 1, 'k']],
  ];

  it.each(hazards)('refuses %s with a typed 400 naming where it is', (_name, text, path) => {
    expect(() => parseRequestJson(text, 64)).toThrow(expect.objectContaining({ code: 'invalid_request', status: 400, path }));
  });

  it('refuses text that is not JSON and nesting past the limit, as typed 400s', () => {
    expect(() => parseRequestJson('{"a":', 64)).toThrow(expect.objectContaining({ code: 'invalid_request', status: 400 }));
    expect(() => parseRequestJson(`${'['.repeat(65)}${']'.repeat(65)}`, 64)).toThrow(/deeper than 64/);
  });

  it('accepts what has one meaning: escapes, surrogate pairs, 0, tiny and big finite numbers, equal keys in different objects', () => {
    const text = '{"a":{"k":1},"b":{"k":"\\"\\\\k\\ud83d\\ude00"},"n":[0,-1,1e308,-2.5e-300,0.0],"e":"","k":true}';
    expect(parseRequestJson(text, 64)).toEqual(JSON.parse(text));
  });

  it('accepts every JSON text JSON.stringify writes of a JSON value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.boolean(), (value, indent) => {
        const text = JSON.stringify(value, null, indent ? 2 : 0);
        expect(jsonHazard(text)).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
  });
});
