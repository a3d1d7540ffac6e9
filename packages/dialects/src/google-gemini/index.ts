/**
 * The Gemini API dialect: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { Dialect } from '../types.ts';
import { googleGeminiClient } from './client.ts';
import { decodeGeminiRequest } from './decode-request.ts';
import { geminiResponseEncoding } from './encode-response.ts';

/**
 * The Google Gemini dialect (`streamGenerateContent?alt=sse`).
 *
 * @example
 * const path = googleGemini.path('gemini-2.5-flash', { stream: true }); // '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'
 */
export const googleGemini: Dialect = {
  ...googleGeminiClient,
  ...geminiResponseEncoding,
  decodeRequest: decodeGeminiRequest,
};
export { googleGeminiClient } from './client.ts';
