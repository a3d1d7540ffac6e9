// The R2 blob store inside workerd against a real R2 binding (miniflare's local R2, the same API a
// deployed Worker gets): the shared conformance suite, the prefix and media type as R2 keeps them,
// the read bound from the object's size, and `POST /files` storing into the bucket the Worker's bindings name.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { blobStoreConformance } from '../test/blob-store-conformance.ts';
import { createR2BlobStore } from '../src/files/r2-blob-store.ts';
import { createParlanceApp } from '../src/index.ts';
import type { FileRef } from '@parlance/protocol';
import type { ChatRunner } from '../src/server-options.ts';

const bucket = (env as unknown as { PARLANCE_FILES: R2Bucket }).PARLANCE_FILES;
let n = 0;

blobStoreConformance('R2 (workerd, real binding)', () => createR2BlobStore(bucket, { prefix: `t${++n}/` }));

describe('R2 blob store (workerd)', () => {
  it('keeps each file under the prefix, with the media type as its content type', async () => {
    const store = createR2BlobStore(bucket, { prefix: 'p1/' });
    await store.put('file_1', new Uint8Array([1, 2, 3]), { mediaType: 'application/pdf' });
    const listed = await bucket.list({ prefix: 'p1/' });
    expect(listed.objects.map((o) => o.key)).toEqual(['p1/file_1']);
    const head = await bucket.head('p1/file_1');
    expect([head?.size, head?.httpMetadata?.contentType]).toEqual([3, 'application/pdf']);
  });

  it('refuses an object over maxFileBytes from its size, and reads one at the bound', async () => {
    await createR2BlobStore(bucket, { prefix: 'big/' }).put('file_big', new Uint8Array(1000), { mediaType: 'image/png' });
    await expect(createR2BlobStore(bucket, { prefix: 'big/', maxFileBytes: 999 }).get('file_big')).rejects.toMatchObject({ code: 'invalid_response' });
    expect(await createR2BlobStore(bucket, { prefix: 'big/', maxFileBytes: 1000 }).get('file_big')).toHaveLength(1000);
  });

  it('a failing binding call is a typed store_unavailable', async () => {
    const broken = { ...bucket, put: async () => Promise.reject(new Error('R2 put: internal error (10001)')), get: bucket.get.bind(bucket), delete: bucket.delete.bind(bucket) };
    await expect(createR2BlobStore(broken).put('file_1', new Uint8Array([1]), { mediaType: 'image/png' })).rejects.toMatchObject({ code: 'store_unavailable' });
  });

  it("POST /files stores the upload in the bucket the Worker's bindings name", async () => {
    // The runner reads the referenced file through the source the server hands it (the engine's path) and says its size.
    const run: ChatRunner = async function* (input) {
      const part = input.thread.messages.at(-1)?.parts.find((p) => p.type === 'file') as { ref?: FileRef } | undefined;
      const bytes = part?.ref ? await input.files?.get(part.ref) : undefined;
      yield { type: 'message-start' };
      yield { type: 'text-start', id: 't' };
      yield { type: 'text-delta', id: 't', delta: `read ${bytes?.length ?? 'nothing'} bytes from R2` };
      yield { type: 'text-end', id: 't' };
      yield { type: 'finish', finishReason: 'stop', usage: {} };
      yield { type: 'chat-finish', haltReason: 'completed', usage: {} };
    };
    const app = createParlanceApp({
      models: [{ id: 'mock:echo', provider: 'mock' }],
      run,
      secret: 'r2-files-test-secret-that-is-long-enough-0123456789',
      // `bindings` is the Worker's env as given; `env` (its strings) cannot carry an R2 binding.
      files: { store: (_, bindings) => createR2BlobStore(bindings.PARLANCE_FILES as R2Bucket, { prefix: 'uploads/' }) },
      onError: (error) => void errors.push(error),
    });
    const errors: unknown[] = [];
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7, 7]);
    const response = await app.fetch(new Request('https://app.test/files', { method: 'POST', body: png, headers: { 'content-type': 'application/octet-stream', 'x-parlance-file-type': 'image/png' } }), env);
    expect([response.status, errors]).toEqual([201, []]);
    const { file } = (await response.json()) as { file: FileRef };
    expect(file).toMatchObject({ size: 10, signature: expect.stringMatching(/.+/) });
    const stored = await bucket.get(`uploads/${file.id}`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(png);
    expect(stored!.httpMetadata?.contentType).toBe('image/png');
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', png));
    expect(file.sha256).toBe(Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''));

    const thread = { version: 1, id: 'th_r2', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is this?' }, { type: 'file', mediaType: 'image/png', ref: file }] }] };
    const chat = await app.fetch(new Request('https://app.test/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientRequestId: 'r2-chat-1', thread }) }), env);
    expect(chat.status).toBe(200);
    expect(await chat.text()).toContain('read 10 bytes from R2');
  });
});
