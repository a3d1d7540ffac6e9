/**
 * The client half of the Google Gemini dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import { modelPathSegment } from '../shared/path-segment.ts';
import type { ClientDialect, WireEvent } from '../types.ts';
import { createGeminiDecoder } from './decode.ts';
import { encodeGeminiRequest } from './encode.ts';

/**
 * The client half of `googleGemini` (encode a request, decode the stream), what a provider that speaks it bundles.
 *
 * @example
 * googleGeminiClient.path('gemini-2.5-flash', { stream: true });
 */
export const googleGeminiClient: ClientDialect = {
  id: 'google_gemini',
  framing: 'sse',
  // `alt=sse` asks for SSE framing; without it the stream is one growing JSON array. The model is
  // one encoded path segment (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent).
  // `generateContent` answers with one GenerateContentResponse (https://ai.google.dev/api/generate-content#method:-models.generatecontent).
  path: (model, options) =>
    options?.stream === false
      ? `/v1beta/models/${modelPathSegment(model)}:generateContent`
      : `/v1beta/models/${modelPathSegment(model)}:streamGenerateContent?alt=sse`,
  encodeRequest: encodeGeminiRequest,
  createDecoder: () => createGeminiDecoder(),
  // The whole response has the shape of each streamed chunk: it is one chunk.
  replayBody: (body: unknown): WireEvent[] => [{ data: JSON.stringify(body) }],
};
