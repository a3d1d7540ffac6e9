/**
 * Where the engine reads the files a thread references (`FilePart.ref`, stored by `POST /files`):
 * a `FileSource`. The server builds one from its blob store; the engine asks it at encode time,
 * after the thread was verified (references are signed for their principal, see SECURITY.md).
 */
import type { FileRef } from '@parlance/protocol';
import type { ProviderFiles } from './provider-files.ts';

/**
 * Reads stored files for the engine: the bytes, and optionally a URL a provider can fetch itself
 * (a presigned or public URL), used where the provider's API takes file URLs.
 *
 * @example
 * const files: FileSource = { get: async (ref) => blobs.get(ref.id) };
 * createEngine({ files });
 */
export interface FileSource {
  /** The file's bytes, or undefined when the store no longer has it. */
  get(ref: FileRef, signal?: AbortSignal): Promise<Uint8Array | undefined>;
  /** A URL the provider may fetch the file from (undefined: send the bytes). */
  url?(ref: FileRef): Promise<string | undefined>;
  /**
   * Upload files to the providers' own Files APIs and send their ids (opt-in; one per process:
   * `createProviderFiles()`, see provider-files.ts for when a file is uploaded rather than inlined).
   */
  providerFiles?: ProviderFiles;
}
