/**
 * References resolved at encode time, per provider: the dialect is given the file's `url` where
 * its provider fetches URLs for that kind of file and the store can give one, and the bytes
 * inline (base64 `data`) everywhere else. What each provider fetches by URL, from its docs:
 * - Anthropic Messages: images and PDFs (`source.type: 'url'`,
 *   https://docs.anthropic.com/en/docs/build-with-claude/vision, .../pdf-support).
 * - OpenAI Responses: images (`input_image.image_url`) and files (`input_file.file_url`,
 *   https://platform.openai.com/docs/guides/pdf-files).
 * - OpenAI Chat Completions: images only (`image_url`); files and audio are inline.
 * - Gemini: `fileData.fileUri` takes Files API URIs, not arbitrary URLs: inline.
 * - Ollama: base64 images only: inline.
 * Where the server opted in (`FileSource.providerFiles`), a file the provider's own Files API takes
 * is uploaded there once and named by its id instead (provider-files.ts); that comes first.
 * The model's input modalities are checked first (`acceptsFile`), so a file the model cannot
 * read fails before anything is read or sent. The bytes' SHA-256 is checked against the
 * reference, so a store that lost or swapped a file fails the run instead of sending other bytes.
 */
import { type FilePart, type FileRef, type InlineFilePart, type ModelRequest, ParlanceError, acceptsFile } from '@parlance/protocol';
import type { FileSource } from './file-source.ts';
import { providerFilePart, uploadsFile, type ModelFileUploads } from './provider-files.ts';

/** Which files a dialect's provider fetches by URL. */
const FETCHES_URL: Record<string, (mediaType: string) => boolean> = {
  anthropic_messages: (t) => t.startsWith('image/') || t === 'application/pdf',
  openai_responses: (t) => t.startsWith('image/') || t === 'application/pdf',
  openai_completions: (t) => t.startsWith('image/'),
};

/**
 * Resolved files kept per engine (one run on the server), so a ten-step run reads each file once:
 * at most `MAX_CACHED_FILES` entries and `MAX_CACHED_BYTES` of base64, the oldest dropped first.
 *
 * @example
 * const cache = createFileCache(); // shared by the steps of one run
 */
export const MAX_CACHED_FILES = 64;
/**
 * The byte bound of a file cache (base64 characters held).
 *
 * @example
 * if (encoded.length > MAX_CACHED_BYTES) console.warn('not cached');
 */
export const MAX_CACHED_BYTES = 64 * 1024 * 1024;

export interface FileCache {
  get(key: string): InlineFilePart | undefined;
  set(key: string, part: InlineFilePart): void;
}

export function createFileCache(maxFiles = MAX_CACHED_FILES, maxBytes = MAX_CACHED_BYTES): FileCache {
  const entries = new Map<string, InlineFilePart>();
  let bytes = 0;
  const size = (part: InlineFilePart) => (part.data ?? part.url).length;
  return {
    get: (key) => entries.get(key),
    set(key, part) {
      if (size(part) > maxBytes || entries.has(key)) return;
      entries.set(key, part);
      bytes += size(part);
      for (const [oldest, value] of entries) {
        if (entries.size <= maxFiles && bytes <= maxBytes) break;
        entries.delete(oldest);
        bytes -= size(value);
      }
    },
  };
}

/**
 * Where a request goes: the dialect (what it fetches by URL) and the model's input modalities (undefined: unknown).
 *
 * @example
 * const target: FileTarget = { dialect: 'anthropic_messages', input: ['text', 'image'], name: 'anthropic:claude-sonnet-4-5' };
 */
export interface FileTarget {
  dialect: string;
  /** `ModelInfo.input` of a catalogued model; undefined when the catalog does not know it. */
  input?: readonly string[] | undefined;
  name: string;
  /** The provider id and its Files API (a provider model's `files`), for provider uploads. */
  provider?: string;
  uploads?: ModelFileUploads | undefined;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  // In slices, so a large file does not overflow the argument list.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Throws `invalid_request` (with the part's path) for the first file the model cannot read. */
export function checkFileInput(request: Pick<ModelRequest, 'messages'>, target: FileTarget): void {
  request.messages.forEach((message, m) => {
    message.parts.forEach((part, p) => {
      if (part.type === 'file' && !acceptsFile(target.input, part.mediaType)) {
        throw new ParlanceError('invalid_request', `${target.name} does not accept ${part.mediaType} files (message ${m}, part ${p})`, {
          status: 415,
          path: ['messages', m, 'parts', p],
          retryable: false,
        });
      }
    });
  });
}

/** The stored bytes of `ref`, checked against its size and SHA-256. */
async function readChecked(ref: FileRef, source: FileSource, path: (string | number)[], signal?: AbortSignal): Promise<Uint8Array> {
  const bytes = await source.get(ref, signal);
  if (!bytes) throw new ParlanceError('not_found', `The file "${ref.id}" is no longer stored: attach it again`, { status: 404, path, retryable: false });
  if (bytes.length !== ref.size || (await sha256Hex(bytes)) !== ref.sha256) {
    throw new ParlanceError('server_error', `The stored file "${ref.id}" does not match its reference (size or SHA-256)`, { path, retryable: false });
  }
  return bytes;
}

async function resolveOne(part: FilePart & { ref: FileRef }, source: FileSource, target: FileTarget, path: (string | number)[], signal?: AbortSignal): Promise<InlineFilePart> {
  const { ref: _ref, ...rest } = part;
  const { ref } = part;
  if (source.url && FETCHES_URL[target.dialect]?.(ref.mediaType)) {
    const url = await source.url(ref);
    if (url !== undefined) return { ...rest, url };
  }
  return { ...rest, data: base64(await readChecked(ref, source, path, signal)) };
}

/**
 * The request with every file reference replaced by the file's URL or bytes for this target
 * (the same request when it holds none). Throws a typed error: `invalid_request` for a file the
 * model does not take or a reference with no file source, `not_found` for a file no longer stored.
 *
 * @example
 * const request = await resolveFileRefs({ messages }, { get: (ref) => blobs.get(ref.id) }, { dialect: 'google_gemini', name: 'google:gemini-2.5-flash' });
 */
export async function resolveFileRefs<R extends Pick<ModelRequest, 'messages'>>(
  request: R,
  source: FileSource | undefined,
  target: FileTarget,
  cache: FileCache = createFileCache(),
  signal?: AbortSignal,
  /** Collects the provider-file cache keys the request names (with-file-refs.ts drops them on a "no such file"). */
  used: string[] = [],
): Promise<R> {
  checkFileInput(request, target);
  if (!request.messages.some((m) => m.parts.some((p) => p.type === 'file' && p.ref !== undefined))) return request;
  const messages = await Promise.all(
    request.messages.map(async (message, m) => {
      if (!message.parts.some((p) => p.type === 'file' && p.ref !== undefined)) return message;
      const parts = await Promise.all(
        message.parts.map(async (part, p) => {
          if (part.type !== 'file' || part.ref === undefined) return part;
          const path = ['messages', m, 'parts', p];
          if (!source) {
            throw new ParlanceError('invalid_request', `The file "${part.ref.id}" is a stored file, and this server has no file store to read it from`, { path, retryable: false });
          }
          const withRef = part as FilePart & { ref: FileRef };
          const upload = target.uploads && target.provider ? { provider: target.provider, dialect: target.dialect, uploads: target.uploads } : undefined;
          if (uploadsFile(part.ref, source, upload)) {
            const ref = part.ref;
            return providerFilePart(withRef, source as FileSource & { providerFiles: NonNullable<FileSource['providerFiles']> }, upload, () => readChecked(ref, source, path, signal), path, used, signal);
          }
          const key = `${target.dialect}\u0000${part.ref.id}\u0000${part.ref.sha256}`;
          const cached = cache.get(key);
          if (cached) return { ...cached, ...(part.filename !== undefined ? { filename: part.filename } : {}) };
          const resolved = await resolveOne(withRef, source, target, path, signal);
          cache.set(key, resolved);
          return resolved;
        }),
      );
      return { ...message, parts };
    }),
  );
  return { ...request, messages };
}
