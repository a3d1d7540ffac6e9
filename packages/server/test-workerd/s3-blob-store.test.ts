// The S3 blob store inside workerd (aws4fetch on the Workers WebCrypto and fetch): the shared
// conformance suite against the local S3 server the project's global setup started in Node
// (s3rver behind a proxy that verifies every SigV4 signature), and a wrong secret refused by it.
import { describe, expect, inject, it } from 'vitest';
import { blobStoreConformance } from '../test/blob-store-conformance.ts';
import { createS3BlobStore } from '../src/files/s3-blob-store.ts';

const endpoint = inject('s3Endpoint');
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
let n = 0;

blobStoreConformance('S3 (workerd, local S3 server, signatures verified)', () => createS3BlobStore({ endpoint, bucket: 'files', credentials, prefix: `workerd-${++n}/` }));

describe('S3 blob store (workerd)', () => {
  it('runs inside workerd', () => {
    expect((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent).toBe('Cloudflare-Workers');
  });

  it('a wrong secret is refused by the server: a typed authentication error', async () => {
    const store = createS3BlobStore({ endpoint, bucket: 'files', credentials: { ...credentials, secretAccessKey: 'wrong' } });
    await expect(store.put('file_1', new Uint8Array([1]), { mediaType: 'image/png' })).rejects.toMatchObject({ code: 'authentication' });
  });

  it('a presigned URL made in workerd reads the file', async () => {
    const store = createS3BlobStore({ endpoint, bucket: 'files', credentials, prefix: 'workerd-pre/', presignedUrlSeconds: 60 });
    await store.put('file_pre', new Uint8Array([9, 8, 7]), { mediaType: 'image/png' });
    const response = await fetch((await store.url!('file_pre', { mediaType: 'image/png' }))!);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array([9, 8, 7]));
  });
});
