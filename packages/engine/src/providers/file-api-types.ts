// The shapes of a provider's Files API (file-apis.ts has the built-in ones): apart, so the provider
// definition (types.ts) can name them without importing the APIs, which import the definition.
import type { FileUpload, UploadedFile } from '../files/provider-files.ts';

/**
 * One authorized call: the provider's auth and headers go only to its own origin (Gemini's upload URL is answered by the API).
 *
 * @example
 * const { json } = await call.post(`${call.baseURL}/files`, form);
 */
export interface FileApiCall {
  baseURL: string;
  providerName: string;
  post(url: string, body: string | FormData | Blob, headers?: Record<string, string>): Promise<{ headers: Headers; json: Record<string, unknown> }>;
}

/**
 * A provider's Files API: which files a dialect can name by id, and the upload.
 *
 * @example
 * defineProvider({ ...definition, files: openaiFileApi });
 */
export interface ProviderFileApi {
  accepts(mediaType: string, dialect: string): boolean;
  upload(file: FileUpload, call: FileApiCall): Promise<UploadedFile>;
}
