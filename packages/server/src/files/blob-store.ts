/**
 * Where `POST /files` keeps the bytes: a `BlobStore`. Keys are the server's file ids (never a
 * name a client chose). Implementations: memory (development, bounded), the file system on Node
 * (`@parlance/server/node`), an R2 bucket binding on Workers, any S3-compatible bucket. Every store passes the same
 * conformance suite (`blob-store-conformance.ts`).
 */
import { ParlanceError } from '@parlance/protocol';

/**
 * What a blob store knows about a stored file besides its bytes.
 *
 * @example
 * const info: BlobInfo = { mediaType: 'image/png' };
 */
export interface BlobInfo {
  mediaType: string;
}

/**
 * A place to keep uploaded files by key. `url` is optional: a store that can hand a provider a
 * URL to fetch the file from (a presigned or public URL) lets the engine send that instead of
 * the bytes, where the provider fetches URLs.
 *
 * @example
 * const store: BlobStore = createMemoryBlobStore();
 * await store.put('file_1', bytes, { mediaType: 'image/png' });
 * const back = await store.get('file_1');
 */
export interface BlobStore {
  put(key: string, bytes: Uint8Array, info: BlobInfo): Promise<void>;
  /** The bytes, or undefined when the key is not (or no longer) stored. */
  get(key: string): Promise<Uint8Array | undefined>;
  delete(key: string): Promise<void>;
  /** A URL a provider may fetch the file from (undefined: the engine sends the bytes). */
  url?(key: string, info: BlobInfo): Promise<string | undefined>;
}

/**
 * Keys are file ids the server made (`file_<hex>`): anything else (`../`, `%2e%2e`, `?`, `#`, `/`,
 * non-ASCII, over 128 characters) is refused with an `invalid_request` `ParlanceError` before it
 * reaches a path or a bucket. A custom `BlobStore` calls it first in each method.
 *
 * @example
 * async get(key) { return bucket.read(prefix + checkBlobKey(key)); }
 */
export function checkBlobKey(key: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(key)) throw new ParlanceError('invalid_request', `Not a file id: ${JSON.stringify(key).slice(0, 80)}`);
  return key;
}
