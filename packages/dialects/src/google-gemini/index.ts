/**
 * The Gemini API dialect: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { Dialect } from '../types.ts';
import { decodeGeminiRequest } from './decode-request.ts';
import { geminiResponseEncoding } from './encode-response.ts';
import { createGeminiDecoder } from './decode.ts';
import { encodeGeminiRequest } from './encode.ts';

/**
 * The Google Gemini dialect (`streamGenerateContent?alt=sse`).
 *
 * @example
 * const path = googleGemini.path('gemini-2.5-flash', { stream: true }); // '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'
 */
export const googleGemini: Dialect = {
  ...geminiResponseEncoding,
  decodeRequest: decodeGeminiRequest,
  id: 'google_gemini',
  framing: 'sse',
  // `alt=sse` asks for SSE framing; without it the stream is one growing JSON array.
  path: (model) => `/v1beta/models/${model.replace(/^models\//, '')}:streamGenerateContent?alt=sse`,
  encodeRequest: encodeGeminiRequest,
  createDecoder: () => createGeminiDecoder(),
};
