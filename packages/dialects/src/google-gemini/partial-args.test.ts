import { describe, expect, it } from 'vitest';
import { createArgsBuilder, parseJsonPath, type PartialArg } from './partial-args.ts';

function build(args: PartialArg[]) {
  const builder = createArgsBuilder();
  let text = '';
  for (const arg of args) {
    const result = builder.apply(arg);
    if (!result.ok) throw new Error(result.message);
    text += result.text;
  }
  text += builder.finish();
  return { text, value: builder.value };
}

describe('streamed function-call arguments', () => {
  it('parses JSONPath segments', () => {
    expect(parseJsonPath('$.a.b[2]["c.d"]')).toEqual(['a', 'b', 2, 'c.d']);
    expect(parseJsonPath("$['x']")).toEqual(['x']);
    expect(parseJsonPath('a.b')).toBeUndefined();
    expect(parseJsonPath('$.a[')).toBeUndefined();
  });

  it('joins continued strings, nests objects and arrays, and writes the same JSON', () => {
    const { text, value } = build([
      { jsonPath: '$.user.name', stringValue: 'Ada "the', willContinue: true },
      { jsonPath: '$.user.name', stringValue: ' first" Lovelace 😀', willContinue: true },
      { jsonPath: '$.user.name', stringValue: '' },
      { jsonPath: '$.user.tags[0]', stringValue: 'x' },
      { jsonPath: '$.user.tags[1]', boolValue: true },
      { jsonPath: '$.matrix[0][0]', numberValue: 1.5 },
      { jsonPath: '$.matrix[0][1]', nullValue: 'NULL_VALUE' },
      { jsonPath: '$.matrix[1][0]', numberValue: -2 },
    ]);
    const expected = { user: { name: 'Ada "the first" Lovelace 😀', tags: ['x', true] }, matrix: [[1.5, null], [-2]] };
    expect(value).toEqual(expected);
    expect(JSON.parse(text)).toEqual(expected);
  });

  it('stops writing text when a path leaves document order, keeping the object right', () => {
    const { text, value } = build([
      { jsonPath: '$.a.x', numberValue: 1 },
      { jsonPath: '$.b', numberValue: 2 },
      { jsonPath: '$.a.y', numberValue: 3 },
    ]);
    expect(value).toEqual({ a: { x: 1, y: 3 }, b: 2 });
    // A valid prefix of some JSON, never a wrong complete document.
    expect(text).toBe('{"a":{"x":1},"b":2');
  });

  it('reports a partial argument without a usable path', () => {
    const builder = createArgsBuilder();
    expect(builder.apply({ stringValue: 'x' }).ok).toBe(false);
    expect(builder.apply({ jsonPath: '$', stringValue: 'x' }).ok).toBe(false);
  });
});
