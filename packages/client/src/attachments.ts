/**
 * Files attached to a message (`send({ text, files })`): checked against what the model reads
 * (`ModelCapabilities.input`, via `acceptsFile`) and the size limits before anything is sent,
 * uploaded once to `POST {api}/files` (with per-file progress), and put in the message as signed
 * references (`FilePart.ref`) instead of their bytes, so a thread with ten photos still posts a
 * few kilobytes per turn. URLs go in as they are. A server without a file store (no `/files`
 * route: 404) gets small files inline as base64, up to `maxInlineFileBytes`.
 */
import { FILE_TYPE_HEADER, type FilePart, type FileUploadResponseBody, ParlanceError, acceptsFile } from '@parlance/protocol';
import { request, type TransportOptions } from './transport.ts';

/**
 * One attachment: a `File` or `Blob`, or a URL the provider fetches (a string, a `URL`, or with its media type).
 *
 * @example
 * const files: Attachment[] = [input.files![0]!, 'https://example.com/cat.png', { url: 'https://example.com/doc', mediaType: 'application/pdf' }];
 */
export type Attachment = Blob | string | URL | { url: string; mediaType?: string; filename?: string };

/**
 * What `send({ files })` takes: one attachment, a `FileList` (an `<input type="file">`'s), or a list.
 *
 * @example
 * chat.send({ text: 'What is in these?', files: event.dataTransfer.files satisfies Attachments });
 */
export type Attachments = Attachment | ArrayLike<Attachment> | Iterable<Attachment>;

/**
 * One file's upload, as `ChatState.uploads` shows it while `send` uploads (cleared when it is done).
 *
 * @example
 * uploads.map((u) => `${u.name}: ${Math.round((100 * u.loaded) / u.size)}%`);
 */
export interface UploadProgress {
  /** The file's position in `files`. */
  index: number;
  name: string;
  mediaType: string;
  size: number;
  /** Bytes sent so far. */
  loaded: number;
}

/**
 * Files larger than this are refused before upload unless `maxFileBytes` says otherwise (20 MiB, the server's default).
 *
 * @example
 * new ChatStore({ api: '/api', maxFileBytes: DEFAULT_MAX_UPLOAD_BYTES / 2 });
 */
export const DEFAULT_MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/**
 * With no file store on the server, files up to this size travel inline (base64, about 4/3 of it
 * in every request of the thread) unless `maxInlineFileBytes` says otherwise: 256 KiB, so a few fit
 * under the server's default 1 MiB body limit.
 *
 * @example
 * new ChatStore({ api: '/api', maxInlineFileBytes: DEFAULT_MAX_INLINE_BYTES * 2 });
 */
export const DEFAULT_MAX_INLINE_BYTES = 256 * 1024;

/** A few common extensions, for a `File` with no type and a URL (the browser names most types itself). */
const EXTENSIONS: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf',
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', json: 'application/json', mp3: 'audio/mpeg', wav: 'audio/wav',
};

function guessType(name: string): string | undefined {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(name)?.[1]?.toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

/** The attachments as a list (a FileList and other array-likes, iterables, or one). */
export function attachmentList(files: Attachments | undefined): Attachment[] {
  if (files === undefined) return [];
  if (typeof files === 'string' || files instanceof URL || files instanceof Blob) return [files];
  if (Symbol.iterator in Object(files)) return [...(files as Iterable<Attachment>)];
  if (typeof (files as ArrayLike<Attachment>).length === 'number') return Array.from(files as ArrayLike<Attachment>);
  return [files as Attachment];
}

interface Described {
  index: number;
  name: string;
  mediaType: string;
  size?: number;
  blob?: Blob;
  url?: string;
}

function refuse(message: string, index: number, status: number): ParlanceError {
  return new ParlanceError('invalid_request', message, { status, path: ['files', index], retryable: false });
}

function describe(file: Attachment, index: number): Described {
  if (file instanceof Blob) {
    const name = (file as File).name ?? `file ${index + 1}`;
    const mediaType = file.type || guessType(name);
    if (!mediaType) throw refuse(`"${name}" has no media type: give the file a type or a known extension`, index, 415);
    return { index, name, mediaType, size: file.size, blob: file };
  }
  const url = typeof file === 'string' ? file : file instanceof URL ? file.href : file.url;
  if (!/^https?:\/\//i.test(url)) throw refuse(`Only http(s) URLs can be attached, not ${url.slice(0, 40)}`, index, 400);
  const given = typeof file === 'object' && !(file instanceof URL) ? file : undefined;
  const mediaType = given?.mediaType ?? guessType(new URL(url).pathname);
  if (!mediaType) throw refuse(`Say what ${url} is: attach it as { url, mediaType }`, index, 415);
  return { index, name: given?.filename ?? (new URL(url).pathname.split('/').pop() || url), mediaType, url };
}

/** Limits and the model's inputs an attachment is checked against. */
export interface AttachmentLimits {
  /** The chosen model's input modalities (`ModelCapabilities.input`); undefined: not known, not checked. */
  input?: readonly string[] | undefined;
  model?: string | undefined;
  maxFileBytes: number;
}

/**
 * The attachments described and checked, before anything is uploaded: a typed `invalid_request`
 * with the path `['files', i]` and status 415 (a type the model does not read, or no type) or 413 (too large).
 */
export function checkAttachments(files: Attachment[], limits: AttachmentLimits): Described[] {
  return files.map((file, index) => {
    const d = describe(file, index);
    if (!acceptsFile(limits.input, d.mediaType)) throw refuse(`${limits.model ?? 'The model'} does not read ${d.mediaType} files ("${d.name}")`, index, 415);
    if (d.size !== undefined && d.size > limits.maxFileBytes) throw refuse(`"${d.name}" is ${d.size} bytes, more than the ${limits.maxFileBytes} allowed`, index, 413);
    if (d.size === 0) throw refuse(`"${d.name}" is empty`, index, 400);
    return d;
  });
}

/**
 * A `fetch` over XMLHttpRequest, whose upload reports progress (fetch cannot, over HTTP/1.1).
 * Used in browsers when no `fetch` is injected; the response goes through the same error handling.
 */
function progressFetch(onProgress: (loaded: number) => void): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(init.method ?? 'GET', String(input));
      for (const [name, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) xhr.setRequestHeader(name, value);
      xhr.responseType = 'arraybuffer';
      xhr.upload.onprogress = (event) => onProgress(event.loaded);
      xhr.onload = () => resolve(new Response(xhr.response as ArrayBuffer, { status: xhr.status, headers: { 'content-type': xhr.getResponseHeader('content-type') ?? '' } }));
      xhr.onerror = () => reject(new TypeError('The upload failed'));
      const signal = init.signal;
      const abort = () => {
        xhr.abort();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
      xhr.send(init.body as XMLHttpRequestBodyInit);
    });
}

/**
 * Uploads one file (`POST {api}/files`) and returns its signed reference; `onProgress` gets the bytes sent.
 *
 * @example
 * const ref = await uploadFile({ api: '/api' }, file, (loaded) => console.log(loaded, '/', file.size));
 * await chat.send([{ type: 'file', mediaType: ref.mediaType, filename: file.name, ref }]);
 */
export async function uploadFile(o: TransportOptions, file: Blob, onProgress?: (loaded: number) => void, mediaType = file.type, signal?: AbortSignal): Promise<FileUploadResponseBody['file']> {
  const xhr = !o.fetch && typeof XMLHttpRequest !== 'undefined' && onProgress;
  const response = await request(xhr ? { ...o, fetch: progressFetch(onProgress) } : o, '/files', {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', [FILE_TYPE_HEADER]: mediaType },
    body: file,
    signal: signal ?? null,
  });
  onProgress?.(file.size);
  const body = (await response.json()) as Partial<FileUploadResponseBody> | null;
  if (!body?.file || typeof body.file.id !== 'string') throw new ParlanceError('invalid_response', 'The server answered an upload without a file reference');
  return body.file;
}

async function base64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** How `attachmentParts` uploads: where, the inline limit when there is no file store, progress. */
export interface UploadOptions extends TransportOptions {
  maxInlineFileBytes: number;
  onProgress: (uploads: UploadProgress[]) => void;
  /** What an earlier upload learned: the server has no `/files` route (a 404: files go inline), or has one. */
  noFileStore?: boolean | undefined;
  knownStore?: boolean;
  signal?: AbortSignal;
}

/**
 * The file parts of checked attachments: URLs as they are, files uploaded once each (in parallel)
 * and referenced. Returns the parts and whether the server turned out to have no file store.
 */
export async function attachmentParts(described: Described[], o: UploadOptions): Promise<{ parts: FilePart[]; noFileStore: boolean }> {
  let noFileStore = o.noFileStore ?? false;
  const uploads: UploadProgress[] = described.filter((d) => d.blob).map((d) => ({ index: d.index, name: d.name, mediaType: d.mediaType, size: d.size!, loaded: 0 }));
  const report = () => o.onProgress(uploads.map((u) => ({ ...u })));
  if (uploads.length) report();
  const inline = async (d: Described): Promise<FilePart> => {
    if (d.size! > o.maxInlineFileBytes) {
      throw refuse(`"${d.name}" is ${d.size} bytes: this server stores no files, and files are sent inline only up to ${o.maxInlineFileBytes} bytes`, d.index, 413);
    }
    return { type: 'file', mediaType: d.mediaType, filename: d.name, data: await base64(d.blob!) };
  };
  const part = async (d: Described): Promise<FilePart> => {
    if (d.url !== undefined) return { type: 'file', mediaType: d.mediaType, filename: d.name, url: d.url };
    if (noFileStore) return inline(d);
    const progress = uploads.find((u) => u.index === d.index)!;
    try {
      const onProgress = (loaded: number) => {
        progress.loaded = loaded;
        report();
      };
      const ref = await uploadFile(o, d.blob!, onProgress, d.mediaType, o.signal);
      return { type: 'file', mediaType: ref.mediaType, filename: d.name, ref };
    } catch (error) {
      if (!(error instanceof ParlanceError && error.status === 404)) throw error;
      noFileStore = true;
      return inline(d);
    }
  };
  // Until the server is known to store files, the first upload goes alone: a server without a
  // file store (404) then costs one wasted upload, not one per file.
  const first = !o.noFileStore && !o.knownStore ? described.find((d) => d.blob) : undefined;
  const firstPart = first && (await part(first));
  const parts = await Promise.all(described.map((d) => (d === first ? firstPart! : part(d))));
  return { parts, noFileStore };
}
