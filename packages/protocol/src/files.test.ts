import { describe, expect, it } from 'vitest';
import { acceptsFile, fileModality } from './files.ts';
import { partSchema } from './schema.ts';

const REF = { id: 'file_1', mediaType: 'image/png', size: 3, sha256: 'a'.repeat(64), signature: 'p2.k.m' };

describe('fileModality and acceptsFile', () => {
  it.each([
    ['image/png', 'image'],
    ['IMAGE/JPEG; q=1', 'image'],
    ['application/pdf', 'pdf'],
    ['audio/wav', 'audio'],
    ['video/mp4', 'video'],
    ['text/markdown', 'text'],
    ['application/json', 'text'],
    ['application/zip', 'file'],
  ])('%s needs %s', (type, modality) => expect(fileModality(type)).toBe(modality));

  it.each([
    [['text'], 'image/png', false],
    [['text', 'image'], 'image/png', true],
    [['text'], 'application/pdf', false],
    [['text', 'image'], 'application/pdf', true],
    [['text', 'pdf'], 'application/pdf', true],
    [['text'], 'text/plain', true],
    [['text'], 'audio/wav', true],
    [undefined, 'image/png', true],
  ] as const)('a model taking %j reads %s: %s', (input, type, ok) => expect(acceptsFile(input, type)).toBe(ok));
});

describe('a file part in the schema', () => {
  it('holds exactly one of data, url or ref', () => {
    expect(partSchema.safeParse({ type: 'file', mediaType: 'image/png', ref: REF }).success).toBe(true);
    expect(partSchema.safeParse({ type: 'file', mediaType: 'image/png', data: 'AA==' }).success).toBe(true);
    for (const bad of [{}, { data: 'AA==', ref: REF }, { url: 'https://x', ref: REF }, { ref: { ...REF, size: '3' } }, { ref: { id: 'f' } }]) {
      expect(partSchema.safeParse({ type: 'file', mediaType: 'image/png', ...bad }).success).toBe(false);
    }
  });
});
