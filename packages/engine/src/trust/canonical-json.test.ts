import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';

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
});
