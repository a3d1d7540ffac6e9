/**
 * Upload once, reference by id: the provider's own Files API (OpenAI `/v1/files`, Anthropic's Files
 * API beta, Gemini's `upload/v1beta/files`) holds a copy of a stored file, and later turns send its
 * id instead of the bytes. Opt-in: a server that wants it creates one `ProviderFiles` (one bounded
 * cache for the process) and hands it to its file source (`FileSource.providerFiles`).
 *
 * When a file goes by upload rather than inline (the rest stays as `resolve-files.ts` says):
 * - its provider is in `providers` (default: every provider with a Files API: openai, anthropic, google),
 *   and the provider's API takes that file for the dialect (`ProviderFileApi.accepts`);
 * - it is at least `minBytes` (default `DEFAULT_UPLOAD_MIN_BYTES`, 128 KiB): a smaller file costs
 *   less inline than an upload round trip.
 * The provider's id is cached per (provider, account, SHA-256): the account is a hash of the base
 * URL and the key (never the key), so one tenant's upload is never referenced with another's key.
 * An id past its expiry (Gemini: 48 h; OpenAI when the file has `expires_at`), less a margin of
 * `EXPIRY_MARGIN_MS`, is uploaded again before use; one the provider no longer knows (a 404 on the
 * call) is dropped and uploaded again once, transparently (`with-file-refs.ts`).
 */
import { type FilePart, type FileRef, type InlineFilePart, ParlanceError } from '@parlance/protocol';

/**
 * Files smaller than this are sent inline even when provider uploads are on (128 KiB).
 *
 * @example
 * createProviderFiles({ minBytes: DEFAULT_UPLOAD_MIN_BYTES * 4 });
 */
export const DEFAULT_UPLOAD_MIN_BYTES = 128 * 1024;

/**
 * At most this many provider file ids are remembered (the least recently used dropped first: it is
 * uploaded again when next needed). Each entry is a few hundred bytes.
 *
 * @example
 * createProviderFiles({ maxEntries: DEFAULT_MAX_PROVIDER_FILES * 10 });
 */
export const DEFAULT_MAX_PROVIDER_FILES = 1000;

/**
 * An id this close to its expiry is uploaded again instead of used (1 hour: a long run still finds it).
 *
 * @example
 * const usable = file.expiresAt === undefined || file.expiresAt - EXPIRY_MARGIN_MS > Date.now();
 */
export const EXPIRY_MARGIN_MS = 60 * 60 * 1000;

/**
 * A provider's copy of a file: its id, the URI requests name it by (Gemini's `fileUri`; the file's
 * resource URL elsewhere) and when it expires (ms since the epoch), when the provider says.
 *
 * @example
 * const file: UploadedFile = { id: 'files/abc', uri: 'https://generativelanguage.googleapis.com/v1beta/files/abc', expiresAt: Date.now() + 48 * 3600_000 };
 */
export interface UploadedFile {
  id: string;
  uri: string;
  expiresAt?: number;
}

/**
 * The bytes an upload sends, checked against their reference before.
 *
 * @example
 * const file: FileUpload = { bytes, mediaType: 'application/pdf', filename: 'report.pdf', sha256 };
 */
export interface FileUpload {
  bytes: Uint8Array;
  mediaType: string;
  filename: string;
  sha256: string;
}

/**
 * A provider model's Files API, bound to its key, base URL and transport (`ProviderModel.files`).
 *
 * @example
 * if (model.files?.accepts('application/pdf')) await model.files.upload(file);
 */
export interface ModelFileUploads {
  /** Whether this model's dialect can name such a file by its provider id. */
  accepts(mediaType: string): boolean;
  /** Who the ids belong to: a hash of the provider, base URL and key (never the key itself). */
  account(): Promise<string>;
  upload(file: FileUpload, signal?: AbortSignal): Promise<UploadedFile>;
}

/**
 * What `createProviderFiles` takes.
 *
 * @example
 * const options: ProviderFilesOptions = { providers: ['anthropic'], minBytes: 512 * 1024 };
 */
export interface ProviderFilesOptions {
  /** Providers whose Files API is used (default: all that have one). */
  providers?: readonly string[];
  /** Smaller files are sent inline (default `DEFAULT_UPLOAD_MIN_BYTES`). */
  minBytes?: number;
  /** Ids remembered (default `DEFAULT_MAX_PROVIDER_FILES`). */
  maxEntries?: number;
  /** The clock expiry is read on (tests). */
  now?: () => number;
}

/**
 * The process-wide record of what was uploaded where (see the module comment).
 *
 * @example
 * const providerFiles = createProviderFiles();
 * createParlanceApp({ models, run, files: { store, providerFiles } });
 */
export interface ProviderFiles {
  readonly minBytes: number;
  /** Whether files for this provider go through its Files API. */
  uses(provider: string): boolean;
  /** The provider's copy for a key, unless unknown or (nearly) expired. */
  get(key: string): UploadedFile | undefined;
  set(key: string, file: UploadedFile): void;
  delete(key: string): void;
  /** Ids remembered now (at most `maxEntries`). */
  readonly size: number;
  /** Uploads under way, so two calls needing one file upload it once. */
  readonly pending: Map<string, Promise<UploadedFile>>;
}

/**
 * A bounded record of provider file ids (least recently used dropped first).
 *
 * @example
 * const providerFiles = createProviderFiles({ minBytes: 0 }); // every file the provider takes is uploaded
 */
export function createProviderFiles(options: ProviderFilesOptions = {}): ProviderFiles {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_PROVIDER_FILES;
  const now = options.now ?? Date.now;
  const entries = new Map<string, UploadedFile>();
  return {
    minBytes: options.minBytes ?? DEFAULT_UPLOAD_MIN_BYTES,
    uses: (provider) => options.providers === undefined || options.providers.includes(provider),
    get(key) {
      const file = entries.get(key);
      if (!file) return undefined;
      if (file.expiresAt !== undefined && file.expiresAt - EXPIRY_MARGIN_MS <= now()) {
        entries.delete(key);
        return undefined;
      }
      // Most recently used last: the first entry is the one dropped.
      entries.delete(key);
      entries.set(key, file);
      return file;
    },
    set(key, file) {
      entries.delete(key);
      entries.set(key, file);
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
    delete: (key) => void entries.delete(key),
    get size() {
      return entries.size;
    },
    pending: new Map(),
  };
}

/**
 * Where a provider file goes: the model's uploads, and the dialect whose `providerState` names the id.
 *
 * @example
 * const target: UploadTarget = { provider: 'openai', dialect: 'openai_responses', uploads: model.files };
 */
export interface UploadTarget {
  provider: string;
  dialect: string;
  uploads: ModelFileUploads;
}

/**
 * What of a `FileSource` (file-source.ts) uploads use: written here rather than imported, because
 * `FileSource` names `ProviderFiles` and the two modules would import each other.
 */
type WithProviderFiles = { providerFiles?: ProviderFiles };

/** Whether `part` goes through the provider's Files API (see the module comment). */
export function uploadsFile(ref: FileRef, source: WithProviderFiles | undefined, target: UploadTarget | undefined): target is UploadTarget {
  const files = source?.providerFiles;
  return !!files && !!target && files.uses(target.provider) && ref.size >= files.minBytes && target.uploads.accepts(ref.mediaType);
}

/**
 * The part naming the provider's copy of the file: uploaded now (bytes from `read`) unless a live
 * copy is known. `used` collects the cache keys, so a call the provider answers "no such file" can
 * drop them and upload again. Upload failures are thrown as typed errors with the part's path.
 *
 * @example
 * const part = await providerFilePart(filePart, source, target, () => readChecked(ref), path, used);
 */
export async function providerFilePart(
  part: FilePart & { ref: FileRef },
  source: { providerFiles: ProviderFiles },
  target: UploadTarget,
  read: () => Promise<Uint8Array>,
  path: (string | number)[],
  used: string[],
  signal?: AbortSignal,
): Promise<InlineFilePart> {
  const { ref, ...rest } = part;
  const files = source.providerFiles;
  const key = `${target.provider}\u0000${await target.uploads.account()}\u0000${ref.sha256}`;
  let file = files.get(key);
  if (!file) {
    let pending = files.pending.get(key);
    if (!pending) {
      const filename = part.filename ?? `${ref.id}.${ref.mediaType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin'}`;
      pending = read()
        .then((bytes) => target.uploads.upload({ bytes, mediaType: ref.mediaType, filename, sha256: ref.sha256 }, signal))
        .finally(() => files.pending.delete(key));
      files.pending.set(key, pending);
    }
    try {
      file = await pending;
    } catch (thrown) {
      const error = ParlanceError.from(thrown);
      if (error.path !== undefined) throw error;
      throw new ParlanceError(error.code, `Uploading the file "${ref.id}" to ${target.provider} failed: ${error.message}`, {
        cause: error,
        path,
        retryable: error.retryable,
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      });
    }
    files.set(key, file);
  }
  used.push(key);
  const { providerState, data: _data, url: _url, ...plain } = rest;
  return { ...plain, url: file.uri, providerState: { ...providerState, [target.dialect]: { fileId: file.id } } };
}
