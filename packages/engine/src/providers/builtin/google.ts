/**
 * Google Gemini API (`streamGenerateContent?alt=sse`). The key goes in the
 * `x-goog-api-key` header, never in the URL's `?key=`, so it cannot end up in a log
 * of URLs. https://ai.google.dev/gemini-api/docs/api-key#provide-api-key-explicitly
 */
import { googleGeminiClient } from '@parlance/dialects';
import { models as googleModels } from '../../catalog/models/google.ts';
import { createProvider } from '../define-provider.ts';
import { geminiFileApi } from '../file-apis.ts';

/**
 * 
 *
 * @example
 * await createEngine().chat({ model: 'google:gemini-2.5-flash', prompt: 'Hi' }); // GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL
 */
export const google = /* @__PURE__ */ createProvider({
  id: 'google',
  name: 'Google Gemini',
  baseURL: 'https://generativelanguage.googleapis.com',
  // @google/genai's variable for the Gemini API (GOOGLE_VERTEX_BASE_URL is Vertex's); a host, the API version is added.
  baseURLEnv: 'GOOGLE_GEMINI_BASE_URL',
  auth: { env: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'GOOGLE_API_KEY'], header: 'x-goog-api-key' },
  dialect: 'google_gemini',
  files: geminiFileApi,
}, { dialects: { google_gemini: googleGeminiClient }, catalog: { google: googleModels } });
