/**
 * The behaviour every `BlobStore` shares, as one suite each store's test calls (Hono's router
 * `common.case.test.ts` pattern): round trips, overwrite, missing keys, delete, binary bytes,
 * independent copies, and keys that could name a path refused (`invalid_request`).
 */
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../src/files/blob-store.ts';

export function blobStoreConformance(name: string, make: () => BlobStore | Promise<BlobStore>): void {
  describe(`${name} (blob store conformance)`, () => {
    it('gives back the bytes it was given, every byte value', async () => {
      const store = await make();
      const bytes = Uint8Array.from({ length: 256 * 3 }, (_, i) => i % 256);
      await store.put('file_a', bytes, { mediaType: 'application/octet-stream' });
      expect(await store.get('file_a')).toEqual(bytes);
    });

    it('answers undefined for a key it does not hold, and after delete', async () => {
      const store = await make();
      expect(await store.get('file_missing')).toBeUndefined();
      await store.put('file_b', new Uint8Array([1]), { mediaType: 'image/png' });
      await store.delete('file_b');
      expect(await store.get('file_b')).toBeUndefined();
      await store.delete('file_b');
    });

    it('replaces a key it holds, and keeps keys apart', async () => {
      const store = await make();
      await store.put('file_c', new Uint8Array([1, 2]), { mediaType: 'image/png' });
      await store.put('file_d', new Uint8Array([9]), { mediaType: 'image/png' });
      await store.put('file_c', new Uint8Array([3]), { mediaType: 'image/png' });
      expect(await store.get('file_c')).toEqual(new Uint8Array([3]));
      expect(await store.get('file_d')).toEqual(new Uint8Array([9]));
    });

    it('keeps its own copy: changing the given or the returned buffer changes nothing stored', async () => {
      const store = await make();
      const bytes = new Uint8Array([1, 2, 3]);
      await store.put('file_e', bytes, { mediaType: 'image/png' });
      bytes[0] = 9;
      const back = (await store.get('file_e'))!;
      back[1] = 9;
      expect(await store.get('file_e')).toEqual(new Uint8Array([1, 2, 3]));
    });

    it.each(['../escape', '..', '.', '%2e%2e', '%2e%2e%2fx', 'a/b', 'a\\b', '', 'x'.repeat(129), 'file 1', 'file%2f', 'a?b', 'a#b', 'é', 'file_\u0000'])('refuses the key %j', async (key) => {
      const store = await make();
      await expect(store.put(key, new Uint8Array([1]), { mediaType: 'image/png' })).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(store.get(key)).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(store.delete(key)).rejects.toMatchObject({ code: 'invalid_request' });
    });
  });
}
