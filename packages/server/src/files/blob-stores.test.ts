import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobStoreConformance } from '../../test/blob-store-conformance.ts';
import { createFileSystemBlobStore } from './fs-blob-store.ts';
import { createMemoryBlobStore } from './memory-blob-store.ts';
import { createR2BlobStore, type R2BucketLike } from './r2-blob-store.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** An in-memory stand-in with R2's binding API (get answers null, bodies through arrayBuffer()). */
function fakeBucket(): R2BucketLike & { keys: () => string[] } {
  const objects = new Map<string, { bytes: Uint8Array; contentType: string | undefined }>();
  return {
    keys: () => [...objects.keys()],
    async put(key, value, options) {
      objects.set(key, { bytes: new Uint8Array(value instanceof ArrayBuffer ? value : value.slice()), contentType: options?.httpMetadata?.contentType });
      return {};
    },
    async get(key) {
      const object = objects.get(key);
      return object ? { arrayBuffer: async () => object.bytes.slice().buffer } : null;
    },
    async delete(key) {
      objects.delete(key);
    },
  };
}

blobStoreConformance('memory', () => createMemoryBlobStore());
blobStoreConformance('file system', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'parlance-blobs-'));
  dirs.push(dir);
  return createFileSystemBlobStore(join(dir, 'files'));
});
blobStoreConformance('R2 (binding API)', () => createR2BlobStore(fakeBucket()));

describe('store specifics', () => {
  it('memory: holds at most maxBytes, dropping the oldest first', async () => {
    const store = createMemoryBlobStore({ maxBytes: 10 });
    await store.put('file_1', new Uint8Array(4), { mediaType: 'image/png' });
    await store.put('file_2', new Uint8Array(4), { mediaType: 'image/png' });
    await store.put('file_3', new Uint8Array(4), { mediaType: 'image/png' });
    expect(await store.get('file_1')).toBeUndefined();
    expect(await store.get('file_2')).toBeDefined();
    await expect(store.put('file_4', new Uint8Array(11), { mediaType: 'image/png' })).rejects.toThrow(RangeError);
  });

  it('file system: leaves no temporary file behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parlance-blobs-'));
    dirs.push(dir);
    const store = createFileSystemBlobStore(dir);
    await store.put('file_1', new Uint8Array([1]), { mediaType: 'image/png' });
    expect(await readdir(dir)).toEqual(['file_1']);
  });

  it('R2: keys under a prefix, with the media type as content type', async () => {
    const bucket = fakeBucket();
    await createR2BlobStore(bucket, { prefix: 'p/' }).put('file_1', new Uint8Array([1]), { mediaType: 'image/png' });
    expect(bucket.keys()).toEqual(['p/file_1']);
  });
});
