/**
 * A blob store in a directory on Node (`@parlance/server/node`, not the main entry: Workers have
 * no file system). One file per key, written to a temporary name and renamed, so a reader never
 * sees half a file.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BlobStore, checkBlobKey } from './blob-store.ts';

/**
 * A `BlobStore` in `dir` (created when missing). Keys are checked file ids, so no key names a path outside it.
 *
 * @example
 * import { createFileSystemBlobStore } from '@parlance/server/node';
 * createParlanceApp({ models, run: engineRunner(), files: { store: createFileSystemBlobStore('./data/files') } });
 */
export function createFileSystemBlobStore(dir: string): BlobStore {
  let made: Promise<unknown> | undefined;
  const ready = () => (made ??= mkdir(dir, { recursive: true }));
  return {
    async put(key, bytes) {
      await ready();
      const path = join(dir, checkBlobKey(key));
      const temporary = `${path}.${crypto.randomUUID()}.tmp`;
      await writeFile(temporary, bytes);
      await rename(temporary, path);
    },
    async get(key) {
      try {
        return new Uint8Array(await readFile(join(dir, checkBlobKey(key))));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async delete(key) {
      await rm(join(dir, checkBlobKey(key)), { force: true });
    },
  };
}
