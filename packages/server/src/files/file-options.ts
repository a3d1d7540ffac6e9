/** What `createParlanceApp` takes to store files (`files`), and its defaults. */
import type { ProviderFiles } from '@parlance/engine';
import type { Env } from '../runtime-env.ts';
import type { BlobStore } from './blob-store.ts';

/**
 * Files larger than this are refused by `POST /files` unless `files.maxFileBytes` says otherwise (20 MiB).
 *
 * @example
 * createParlanceApp({ models, run, files: { store, maxFileBytes: DEFAULT_MAX_FILE_BYTES / 2 } });
 */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * Media types `POST /files` stores unless `files.accept` says otherwise: images, PDFs, audio and text.
 *
 * @example
 * createParlanceApp({ models, run, files: { store, accept: [...DEFAULT_FILE_TYPES, 'video/*'] } });
 */
export const DEFAULT_FILE_TYPES: readonly string[] = ['image/*', 'application/pdf', 'audio/*', 'text/*', 'application/json'];

/**
 * Where uploaded files go and which are taken. With `files` set, the app serves `POST /files`
 * (same edge as `/chat`: Origin, `authorize`, rate limit; the body is the file's bytes as
 * `application/octet-stream`, its media type in the `x-parlance-file-type` header) and answers a
 * reference signed for the caller; the engine reads the bytes back when it encodes a request.
 * Without it there is no `/files` route, and clients send small files inline in the thread.
 *
 * @example
 * const files: FileStoreOptions = { store: createMemoryBlobStore(), maxFileBytes: 10 * 1024 * 1024 };
 */
export interface FileStoreOptions {
  /**
   * The blob store, or a function of the runtime's environment: `env` holds its strings, `bindings`
   * everything a Worker is given (`(_, bindings) => createR2BlobStore(bindings.FILES as R2BucketLike)`).
   */
  store: BlobStore | ((env: Env, bindings: Readonly<Record<string, unknown>>) => BlobStore);
  /** The largest file taken, in bytes (default `DEFAULT_MAX_FILE_BYTES`, 20 MiB); larger is a 413. */
  maxFileBytes?: number;
  /** Media types taken, exact or `type/*` (default `DEFAULT_FILE_TYPES`); others are a 415. */
  accept?: readonly string[];
  /**
   * Upload stored files to the providers' own Files APIs once and send their ids in later turns
   * (opt-in: `createProviderFiles()` from `@parlance/engine`, one for the app; see its README).
   */
  providerFiles?: ProviderFiles;
}

/** Whether `mediaType` matches one of the patterns (`image/*` or exact, case-insensitive). */
export function acceptsType(patterns: readonly string[], mediaType: string): boolean {
  const type = mediaType.toLowerCase();
  return patterns.some((pattern) => {
    const p = pattern.toLowerCase();
    return p.endsWith('/*') ? type.startsWith(p.slice(0, -1)) : type === p;
  });
}
