/**
 * `@parlance/server/node`: what only runs on Node (or Bun, Deno with node: modules): the file
 * system blob store. The main entry stays free of `node:` imports, so it bundles for Workers.
 */
export { createFileSystemBlobStore } from './files/fs-blob-store.ts';
