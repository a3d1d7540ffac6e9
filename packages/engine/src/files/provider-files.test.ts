import type { FileRef } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import type { FileSource } from './file-source.ts';
import { createProviderFiles, EXPIRY_MARGIN_MS, providerFilePart, type ModelFileUploads, type UploadedFile } from './provider-files.ts';

const ref = (sha256: string): FileRef => ({ id: `file_${sha256}`, mediaType: 'application/pdf', size: 10, sha256, signature: 'p2.k.m' });

function uploads(): ModelFileUploads & { count: number } {
  const fake = {
    count: 0,
    accepts: () => true,
    account: async () => 'acct',
    async upload(): Promise<UploadedFile> {
      fake.count++;
      return { id: `pf_${fake.count}`, uri: `https://provider.example/files/pf_${fake.count}` };
    },
  };
  return fake;
}

describe('createProviderFiles', () => {
  it('holds at most maxEntries ids, dropping the least recently used', () => {
    const files = createProviderFiles({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) files.set(`k${i}`, { id: `f${i}`, uri: `u${i}` });
    expect(files.size).toBe(3);
    expect([files.get('k6'), files.get('k7')]).toEqual([undefined, { id: 'f7', uri: 'u7' }]);
    // k7 was used last: k8 goes first.
    files.set('k10', { id: 'f10', uri: 'u10' });
    expect(files.get('k8')).toBeUndefined();
    expect(files.get('k7')).toBeDefined();
    expect(files.size).toBe(3);
  });

  it('forgets an id within EXPIRY_MARGIN_MS of its expiry', () => {
    let now = 0;
    const files = createProviderFiles({ now: () => now });
    files.set('k', { id: 'f', uri: 'u', expiresAt: 2 * EXPIRY_MARGIN_MS });
    now = EXPIRY_MARGIN_MS - 1;
    expect(files.get('k')).toBeDefined();
    now = EXPIRY_MARGIN_MS;
    expect(files.get('k')).toBeUndefined();
    expect(files.size).toBe(0);
  });

  it('uploads once for concurrent calls, and again for a file dropped from the bound', async () => {
    const providerFiles = createProviderFiles({ maxEntries: 2, minBytes: 0 });
    const source: FileSource & { providerFiles: typeof providerFiles } = { get: async () => new Uint8Array(10), providerFiles };
    const target = { provider: 'p', dialect: 'openai_responses', uploads: uploads() };
    const part = (sha: string) => ({ type: 'file' as const, mediaType: 'application/pdf', ref: ref(sha) });
    const resolve = (sha: string) => providerFilePart(part(sha), source, target, source.get as () => Promise<Uint8Array>, ['messages', 0, 'parts', 0], []);
    const [a, b] = await Promise.all([resolve('a'), resolve('a')]);
    expect(target.uploads.count).toBe(1);
    expect(a).toEqual(b);
    expect(a).toEqual({ type: 'file', mediaType: 'application/pdf', url: 'https://provider.example/files/pf_1', providerState: { openai_responses: { fileId: 'pf_1' } } });
    await resolve('b');
    await resolve('c');
    expect(providerFiles.size).toBe(2);
    await resolve('a');
    expect(target.uploads.count).toBe(4);
  });
});
