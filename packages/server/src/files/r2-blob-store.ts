/**
 * A blob store in a Cloudflare R2 bucket, through its Workers binding
 * (https://developers.cloudflare.com/r2/api/workers/workers-api-reference/). Typed structurally
 * (the methods used), so the server does not depend on @cloudflare/workers-types.
 */
import { type BlobStore, checkBlobKey } from './blob-store.ts';

/**
 * The part of an R2 bucket binding the store uses (`env.FILES` in a Worker).
 *
 * @example
 * const bucket: R2BucketLike = env.FILES;
 */
export interface R2BucketLike {
  put(key: string, value: Uint8Array | ArrayBuffer, options?: { httpMetadata?: { contentType?: string } }): Promise<unknown>;
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
  delete(key: string): Promise<void>;
}

/**
 * A `BlobStore` in an R2 bucket (Workers). Keys are prefixed (default `parlance/files/`).
 *
 * @example
 * export default { fetch: (request, env) => createParlanceApp({ models, run: engineRunner(), files: { store: createR2BlobStore(env.FILES) } }).fetch(request, env) };
 */
export function createR2BlobStore(bucket: R2BucketLike, options: { prefix?: string } = {}): BlobStore {
  const prefix = options.prefix ?? 'parlance/files/';
  return {
    async put(key, bytes, info) {
      await bucket.put(prefix + checkBlobKey(key), bytes, { httpMetadata: { contentType: info.mediaType } });
    },
    async get(key) {
      const object = await bucket.get(prefix + checkBlobKey(key));
      return object ? new Uint8Array(await object.arrayBuffer()) : undefined;
    },
    async delete(key) {
      await bucket.delete(prefix + checkBlobKey(key));
    },
  };
}
