import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Bytes, decodeFloat32Base64 } from './openai-embeddings.ts';

describe('decodeFloat32Base64', () => {
  it('reads what Buffer encodes, for any float32 vector', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true }), { maxLength: 40 }), (vector) => {
        const bytes = Buffer.alloc(vector.length * 4);
        for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
        expect(decodeFloat32Base64(bytes.toString('base64'))).toEqual(vector.map((v) => Math.fround(v)));
      }),
    );
  });

  it('the table decoder (browsers, Workers) reads what the native one reads', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }).filter((b) => b.length % 4 === 0), (bytes) => {
        const text = Buffer.from(bytes).toString('base64');
        expect(base64Bytes(text, false)).toEqual(new Uint8Array(bytes));
        expect(new Uint8Array(base64Bytes(text, true))).toEqual(new Uint8Array(bytes));
      }),
    );
    expect(() => base64Bytes('AA*AAAAAAAA=', false)).toThrow(/outside base64/);
  });

  it('refuses a length that is not whole floats, and characters outside base64', () => {
    expect(() => decodeFloat32Base64('AAA=')).toThrow(/whole number/);
    expect(() => decodeFloat32Base64('AA*AAAAAAAA=')).toThrow(/outside base64/);
  });
});
