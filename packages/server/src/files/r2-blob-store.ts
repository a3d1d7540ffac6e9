/**
 * A blob store in a Cloudflare R2 bucket, through its Workers binding
 * (https://developers.cloudflare.com/r2/api/workers/workers-api-reference/). Typed structurally
 * (the methods used), so the server does not depend on @cloudflare/workers-types.
 */
import { ParlanceError } from '@parlance/protocol';
import { type BlobStore, checkBlobKey } from './blob-store.ts';
import { DEFAULT_MAX_FILE_BYTES } from './file-options.ts';

/**
 * The part of an R2 bucket binding the store uses (`env.FILES` in a Worker).
 *
 * @example
 * const bucket: R2BucketLike = env.FILES;
 */
export interface R2BucketLike {
  put(key: string, value: Uint8Array | ArrayBuffer, options?: { httpMetadata?: { contentType?: string } }): Promise<unknown>;
  /** `size` (R2's `R2ObjectBody.size`) lets the store refuse an object over `maxFileBytes` before reading it. */
  get(key: string): Promise<{ size?: number; arrayBuffer(): Promise<ArrayBuffer> } | null>;
  delete(key: string): Promise<void>;
}

/**
 * Options of `createR2BlobStore`.
 *
 * @example
 * createR2BlobStore(env.FILES, { prefix: 'uploads/', maxFileBytes: 10 * 1024 * 1024 } satisfies R2BlobStoreOptions);
 */
export interface R2BlobStoreOptions {
  /** Prepended to every key (default `parlance/files/`). */
  prefix?: string;
  /** The largest object `get` reads (default `DEFAULT_MAX_FILE_BYTES`, 20 MiB); a larger one is an `invalid_response`, not read. */
  maxFileBytes?: number;
}

/**
 * A `BlobStore` in an R2 bucket (Workers). Keys are prefixed (default `parlance/files/`). A failing
 * binding call is a `store_unavailable` `ParlanceError` (its error as `cause`).
 *
 * @example
 * export default { fetch: (request, env) => createParlanceApp({ models, run: engineRunner(), files: { store: createR2BlobStore(env.FILES) } }).fetch(request, env) };
 */
export function createR2BlobStore(bucket: R2BucketLike, options: R2BlobStoreOptions = {}): BlobStore {
  const prefix = options.prefix ?? 'parlance/files/';
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const call = async <T>(what: string, key: string, run: (name: string) => Promise<T>): Promise<T> => {
    const name = prefix + checkBlobKey(key);
    try {
      return await run(name);
    } catch (error) {
      if (ParlanceError.isInstance(error)) throw error;
      throw new ParlanceError('store_unavailable', `R2 ${what} ${name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };
  return {
    async put(key, bytes, info) {
      await call('put', key, (name) => bucket.put(name, bytes, { httpMetadata: { contentType: info.mediaType } }));
    },
    async get(key) {
      return call('get', key, async (name) => {
        const object = await bucket.get(name);
        if (!object) return undefined;
        if (object.size !== undefined && object.size > maxFileBytes) {
          throw new ParlanceError('invalid_response', `R2 object ${name} is ${object.size} bytes, over the ${maxFileBytes} bytes a file may have`);
        }
        return new Uint8Array(await object.arrayBuffer());
      });
    },
    async delete(key) {
      await call('delete', key, (name) => bucket.delete(name));
    },
  };
}
