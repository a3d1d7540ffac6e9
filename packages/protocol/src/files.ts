/**
 * Files in the protocol: the route that stores them (`POST {api}/files`, its headers and answer),
 * and the one mapping from a media type to the input modality a model must take to read it
 * (`ModelCapabilities.input`), used by the client before an upload and by the engine before a
 * model call, so both refuse the same files.
 */
import type { FileRef } from './message.ts';

/**
 * The header of `POST {api}/files` that names the file's media type (the body is sent as
 * `application/octet-stream`, which a cross-site form cannot send without a CORS preflight).
 *
 * @example
 * fetch('/api/files', { method: 'POST', headers: { 'content-type': 'application/octet-stream', [FILE_TYPE_HEADER]: file.type }, body: file });
 */
export const FILE_TYPE_HEADER = 'x-parlance-file-type';

/**
 * What `POST {api}/files` answers (201): the signed reference the thread holds instead of the bytes.
 *
 * @example
 * const { file } = (await response.json()) as FileUploadResponseBody;
 * chat.send([{ type: 'file', mediaType: file.mediaType, ref: file }]);
 */
export interface FileUploadResponseBody {
  file: FileRef;
}

/**
 * The input modality a file of this media type needs: `image`, `pdf`, `audio`, `video`, or `text`
 * (text files are read as text by every model). Anything else is `file`.
 *
 * @example
 * fileModality('image/png'); // 'image'
 * fileModality('application/pdf'); // 'pdf'
 */
export function fileModality(mediaType: string): 'image' | 'pdf' | 'audio' | 'video' | 'text' | 'file' {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type === 'application/pdf') return 'pdf';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('text/') || type === 'application/json') return 'text';
  return 'file';
}

/**
 * Whether a model whose input modalities are `input` (`ModelCapabilities.input`) reads a file of
 * this media type. An unknown model (`input` undefined) is assumed to. The catalog lists `text` and
 * `image` only, so a PDF passes for a model that takes `pdf` or images (every catalogued provider
 * reads PDFs through its vision models); audio, video and other files pass for a model that lists
 * them, and otherwise fail at the dialect (it knows what its provider takes) before any call.
 *
 * @example
 * acceptsFile(['text', 'image'], 'application/pdf'); // true
 * acceptsFile(['text'], 'image/png'); // false
 */
export function acceptsFile(input: readonly string[] | undefined, mediaType: string): boolean {
  if (input === undefined) return true;
  const modality = fileModality(mediaType);
  if (modality === 'text' || input.includes(modality)) return true;
  if (modality === 'pdf') return input.includes('image');
  return modality !== 'image';
}
