/** A blob store in this process's memory, for development and tests: bounded in bytes, the oldest files dropped first. */
import { type BlobStore, checkBlobKey } from './blob-store.ts';

/**
 * The bound of a memory blob store.
 *
 * @example
 * createMemoryBlobStore({ maxBytes: 16 * 1024 * 1024 } satisfies MemoryBlobStoreOptions);
 */
export interface MemoryBlobStoreOptions {
  /** Bytes kept at most (default 64 MiB); storing past it drops the oldest files first. */
  maxBytes?: number;
}

/**
 * A `BlobStore` in memory: for development and tests (a restart loses every file; one process only).
 *
 * @example
 * createParlanceApp({ models, run: engineRunner(), files: { store: createMemoryBlobStore() } });
 */
export function createMemoryBlobStore(options: MemoryBlobStoreOptions = {}): BlobStore {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const blobs = new Map<string, Uint8Array>();
  let bytes = 0;
  const drop = (key: string) => {
    const old = blobs.get(key);
    if (old) bytes -= old.length;
    blobs.delete(key);
  };
  return {
    async put(key, data) {
      checkBlobKey(key);
      if (data.length > maxBytes) throw new RangeError(`A file of ${data.length} bytes is larger than the memory store (${maxBytes} bytes)`);
      drop(key);
      // A copy: the caller's buffer may be reused.
      blobs.set(key, data.slice());
      bytes += data.length;
      for (const oldest of blobs.keys()) {
        if (bytes <= maxBytes) break;
        drop(oldest);
      }
    },
    async get(key) {
      checkBlobKey(key);
      return blobs.get(key)?.slice();
    },
    async delete(key) {
      checkBlobKey(key);
      drop(key);
    },
  };
}
