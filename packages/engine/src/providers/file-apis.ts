/**
 * The providers' Files APIs, each as one small upload function over an authorized `post`
 * (`modelFileUploads` binds it to a model's key, base URL and transport):
 * - OpenAI: `POST /v1/files`, multipart `file` + `purpose` (`vision` for images, `user_data` for the
 *   rest) + `expires_after` (30 days after creation, the longest OpenAI takes: without it a file stays
 *   until deleted); the answer's `id` and `expires_at`. https://platform.openai.com/docs/api-reference/files/create
 * - Anthropic: `POST /v1/files`, multipart `file`, with the `anthropic-beta: files-api-2025-04-14`
 *   header; the answer's `id`; files stay until deleted. https://docs.anthropic.com/en/api/files-create
 * - Gemini: the resumable protocol in two requests: `POST /upload/v1beta/files` with
 *   `X-Goog-Upload-Command: start` answers an upload URL (`x-goog-upload-url`), then the bytes with
 *   `upload, finalize`; the answer's `file.name`, `file.uri` and `file.expirationTime` (48 h).
 * Anthropic keeps a file until it is deleted, and nothing here deletes one: its Files API storage
 * grows with the distinct files sent (one copy per file and key, the cache reuses it).
 *   https://ai.google.dev/api/files#method:-media.upload
 * Images, PDFs and audio are ready when the upload returns (Gemini's PROCESSING state is for video,
 * which is not uploaded here); a `FAILED` state is an error.
 */
import { ANTHROPIC_FILES_BETA } from '@parlance/dialects';
import { ParlanceError } from '@parlance/protocol';
import type { FileUpload, ModelFileUploads, UploadedFile } from '../files/provider-files.ts';
import type { Transport } from '../transport/transport.ts';
import { authHeaders, resolveApiKey, resolveBaseURL } from './auth.ts';
import type { FileApiCall, ProviderFileApi } from './file-api-types.ts';
import type { ProviderDefinition, ProviderSettings } from './types.ts';

export type { FileApiCall, ProviderFileApi } from './file-api-types.ts';


const isImage = (t: string) => t.startsWith('image/');
/**
 * The `expires_after` of OpenAI uploads: its longest (30 days), so uploads do not pile up in the account.
 *
 * @example
 * const expiresAt = Date.now() + OPENAI_FILE_TTL_SECONDS * 1000;
 */
export const OPENAI_FILE_TTL_SECONDS = 30 * 24 * 3600;
const isPdf = (t: string) => t === 'application/pdf';

function form(file: FileUpload, fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.mediaType }), file.filename);
  return body;
}

function idOf(json: Record<string, unknown>, call: FileApiCall): string {
  if (typeof json.id !== 'string' || json.id === '') throw new ParlanceError('invalid_response', `${call.providerName} answered a file upload without an id`);
  return json.id;
}

/**
 * OpenAI's Files API: Responses names images and PDFs by `file_id`; Chat Completions PDFs only (`image_url` takes no id).
 *
 * @example
 * const file = await openaiFileApi.upload({ bytes, mediaType: 'application/pdf', filename: 'a.pdf', sha256 }, call);
 */
export const openaiFileApi: ProviderFileApi = {
  accepts: (t, dialect) => (dialect === 'openai_responses' ? isImage(t) || isPdf(t) : dialect === 'openai_completions' && isPdf(t)),
  async upload(file, call) {
    const fields = { purpose: isImage(file.mediaType) ? 'vision' : 'user_data', 'expires_after[anchor]': 'created_at', 'expires_after[seconds]': String(OPENAI_FILE_TTL_SECONDS) };
    const { json } = await call.post(`${call.baseURL}/files`, form(file, fields));
    const id = idOf(json, call);
    const expires = typeof json.expires_at === 'number' ? json.expires_at * 1000 : undefined;
    return { id, uri: `${call.baseURL}/files/${encodeURIComponent(id)}`, ...(expires ? { expiresAt: expires } : {}) };
  },
};

/**
 * Anthropic's Files API (beta): images and PDFs, named by `source: { type: 'file', file_id }`.
 *
 * @example
 * const file = await anthropicFileApi.upload({ bytes, mediaType: 'image/png', filename: 'cat.png', sha256 }, call);
 */
export const anthropicFileApi: ProviderFileApi = {
  accepts: (t, dialect) => dialect === 'anthropic_messages' && (/^image\/(jpeg|png|gif|webp)$/.test(t) || isPdf(t)),
  async upload(file, call) {
    const { json } = await call.post(`${call.baseURL}/v1/files`, form(file), { 'anthropic-beta': ANTHROPIC_FILES_BETA });
    const id = idOf(json, call);
    return { id, uri: `${call.baseURL}/v1/files/${encodeURIComponent(id)}` };
  },
};

/**
 * Gemini's Files API: images, PDFs, audio and text, named by `fileData.fileUri`; 48 hours.
 *
 * @example
 * const file = await geminiFileApi.upload({ bytes, mediaType: 'application/pdf', filename: 'a.pdf', sha256 }, call);
 */
export const geminiFileApi: ProviderFileApi = {
  accepts: (t, dialect) => dialect === 'google_gemini' && (isImage(t) || isPdf(t) || t.startsWith('audio/') || t.startsWith('text/')),
  async upload(file, call) {
    const start = await call.post(`${call.baseURL}/upload/v1beta/files`, JSON.stringify({ file: { display_name: file.filename } }), {
      'content-type': 'application/json',
      'x-goog-upload-protocol': 'resumable',
      'x-goog-upload-command': 'start',
      'x-goog-upload-header-content-length': String(file.bytes.length),
      'x-goog-upload-header-content-type': file.mediaType,
    });
    const uploadURL = start.headers.get('x-goog-upload-url');
    if (!uploadURL) throw new ParlanceError('invalid_response', `${call.providerName} answered the upload start without an upload URL`);
    const done = await call.post(uploadURL, new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.mediaType }), {
      'x-goog-upload-command': 'upload, finalize',
      'x-goog-upload-offset': '0',
    });
    const stored = done.json.file as { name?: unknown; uri?: unknown; expirationTime?: unknown; state?: unknown } | undefined;
    if (typeof stored?.name !== 'string' || typeof stored.uri !== 'string') {
      throw new ParlanceError('invalid_response', `${call.providerName} answered a file upload without its name and URI`);
    }
    if (stored.state === 'FAILED') throw new ParlanceError('invalid_request', `${call.providerName} could not process the file ${file.filename}`, { retryable: false });
    const expires = typeof stored.expirationTime === 'string' ? Date.parse(stored.expirationTime) : Number.NaN;
    return { id: stored.name, uri: stored.uri, ...(Number.isNaN(expires) ? {} : { expiresAt: expires }) };
  },
};

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers) for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/**
 * A provider model's Files API bound to its settings: the key resolved per upload, the definition's
 * and the settings' headers, the model's transport (retries, timeouts, abort, redaction).
 *
 * @example
 * const uploads = modelFileUploads(definition, settings, transport, 'openai_responses');
 */
export function modelFileUploads(definition: ProviderDefinition & { files: ProviderFileApi }, settings: ProviderSettings, transport: Transport, dialect: string): ModelFileUploads {
  const providerName = definition.name ?? definition.id;
  const api = definition.files;
  const key = () => resolveApiKey(definition.auth, settings, providerName);
  return {
    accepts: (mediaType) => api.accepts(mediaType, dialect),
    async account() {
      return (await sha256Hex(`${definition.id}\u0000${resolveBaseURL(definition, settings)}\u0000${(await key()) ?? ''}`)).slice(0, 32);
    },
    async upload(file, signal) {
      const baseURL = resolveBaseURL(definition, settings);
      const apiKey = await key();
      const secrets = apiKey ? [apiKey] : [];
      const origin = new URL(baseURL).origin;
      const call: FileApiCall = {
        baseURL,
        providerName,
        async post(url, body, headers = {}) {
          // The key and the caller's headers go only to the provider's own origin.
          const own = new URL(url).origin === origin;
          const opened = await transport.open({
            url,
            headers: { accept: 'application/json', ...(own ? { ...lowerKeys(definition.headers), ...lowerKeys(settings.headers), ...authHeaders(definition.auth, apiKey) } : {}), ...headers },
            body,
            signal,
            providerName,
            parseError: definition.parseError,
            secrets,
          });
          if (!opened.ok) throw opened.error;
          let text: string;
          try {
            text = await new Response(opened.body).text();
          } catch (cause) {
            throw opened.failure() ?? new ParlanceError('network', `The answer of ${providerName} was cut off`, { cause });
          }
          let json: unknown = {};
          if (text.trim() !== '') {
            try {
              json = JSON.parse(text);
            } catch (cause) {
              throw new ParlanceError('invalid_response', `${providerName} did not answer a file upload with JSON`, { cause });
            }
          }
          if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ParlanceError('invalid_response', `${providerName} answered a file upload with JSON that is not an object`);
          return { headers: opened.headers, json: json as Record<string, unknown> };
        },
      };
      return api.upload(file, call);
    },
  };
}
