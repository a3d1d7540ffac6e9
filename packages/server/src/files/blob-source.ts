/** The blob store of a request's environment, and the engine's view of it (a `FileSource`). */
import type { FileSource } from '@parlance/engine';
import type { Env } from '../runtime-env.ts';
import type { FileStoreOptions } from './file-options.ts';
import type { BlobStore } from './blob-store.ts';

export function blobStoreFor(files: FileStoreOptions, env: Env, bindings: Readonly<Record<string, unknown>>): BlobStore {
  return typeof files.store === 'function' ? files.store(env, bindings) : files.store;
}

/** What the engine reads referenced files through: the store's bytes, and its URLs when it gives them. */
export function fileSourceFor(files: FileStoreOptions, env: Env, bindings: Readonly<Record<string, unknown>>): FileSource {
  const store = blobStoreFor(files, env, bindings);
  const source: FileSource = { get: (ref) => store.get(ref.id) };
  if (store.url) source.url = (ref) => store.url!(ref.id, { mediaType: ref.mediaType });
  if (files.providerFiles) source.providerFiles = files.providerFiles;
  return source;
}
