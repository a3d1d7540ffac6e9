/**
 * Gemini image models ("Nano Banana": gemini-2.5-flash-image, gemini-3-pro-image-preview)
 * through `generateContent` with `responseModalities: ['TEXT', 'IMAGE']`; input images
 * for edits travel as `inlineData` parts.
 * https://ai.google.dev/gemini-api/docs/image-generation
 * https://ai.google.dev/api/generate-content#v1beta.models.generateContent
 * Gemini takes no mask (describe the region in the prompt) and has no variations endpoint.
 */
import { modelPathSegment } from '@parlance/dialects';
import { ParlanceError, type FilePart, type Usage } from '@parlance/protocol';
import { checkModelId, sealedURL } from '../providers/provider-url.ts';
import { postJson, type ImageCallOptions, type ImageEditRequest, type ImageGenerateRequest, type ImageInput, type ImageModel, type ImageResult } from './image-model.ts';

/**
 * 
 *
 * @example
 * geminiImageModel({ modelId: 'gemini-2.5-flash-image', apiKey: key, baseURL: 'https://gateway.internal/google' });
 */
export interface GeminiImageModelOptions {
  modelId: string;
  apiKey: string;
  baseURL?: string;
  fetch?: typeof globalThis.fetch;
  headers?: Record<string, string>;
}

interface GeminiPart {
  text?: string;
  inlineData?: { mimeType?: string; data?: string };
  thought?: boolean;
}

interface GeminiResponse {
  candidates?: { content?: { parts?: GeminiPart[] }; finishReason?: string }[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; totalTokenCount?: number };
}

function toResult(body: GeminiResponse): ImageResult {
  const images: FilePart[] = [];
  let text = '';
  for (const candidate of body.candidates ?? []) {
    for (const part of candidate.content?.parts ?? []) {
      if (part.thought) continue;
      if (part.inlineData?.data) images.push({ type: 'file', mediaType: part.inlineData.mimeType ?? 'image/png', data: part.inlineData.data });
      else if (part.text) text += part.text;
    }
  }
  if (images.length === 0) {
    const reason = body.promptFeedback?.blockReason ?? body.candidates?.[0]?.finishReason;
    if (reason && reason !== 'STOP') throw new ParlanceError('content_filter', `Gemini returned no image (${reason})`);
    throw new ParlanceError('invalid_response', `Gemini returned no image${text ? `: ${text.slice(0, 200)}` : ''}`);
  }
  const result: ImageResult = { images };
  if (text) result.text = text;
  const meta = body.usageMetadata;
  if (meta) {
    const usage: Usage = {};
    if (meta.promptTokenCount !== undefined) usage.inputTokens = meta.promptTokenCount;
    if (meta.candidatesTokenCount !== undefined) usage.outputTokens = meta.candidatesTokenCount;
    if (meta.totalTokenCount !== undefined) usage.totalTokens = meta.totalTokenCount;
    result.usage = usage;
  }
  return result;
}

/**
 * An image model on the Gemini API.
 *
 * @example
 * const model = geminiImageModel({ modelId: 'gemini-2.5-flash-image', apiKey: process.env.GEMINI_API_KEY! });
 */
export function geminiImageModel(options: GeminiImageModelOptions): ImageModel {
  checkModelId(options.modelId);
  const base = (options.baseURL ?? 'https://generativelanguage.googleapis.com/v1beta').replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;

  const call = async (request: ImageGenerateRequest, images: ImageInput[], opts: ImageCallOptions) => {
    const generationConfig: Record<string, unknown> = { responseModalities: ['TEXT', 'IMAGE'] };
    if (request.n !== undefined) generationConfig.candidateCount = request.n;
    if (request.aspectRatio !== undefined) generationConfig.imageConfig = { aspectRatio: request.aspectRatio };
    const parts = [{ text: request.prompt }, ...images.map((image) => ({ inlineData: { mimeType: image.mediaType, data: image.data } }))];
    const body = { contents: [{ role: 'user', parts }], generationConfig, ...request.extra };
    const init: { headers: Record<string, string>; body: BodyInit; signal?: AbortSignal } = {
      headers: { 'content-type': 'application/json', 'x-goog-api-key': options.apiKey, ...options.headers },
      body: JSON.stringify(body),
    };
    if (opts.signal) init.signal = opts.signal;
    const url = sealedURL(base, `/models/${modelPathSegment(options.modelId)}:generateContent`);
    return toResult((await postJson(fetchImpl, url, init)) as GeminiResponse);
  };

  return {
    provider: 'google',
    modelId: options.modelId,
    generate: (request, opts = {}) => call(request, [], opts),
    edit(request: ImageEditRequest, opts = {}) {
      if (request.mask) {
        return Promise.reject(new ParlanceError('invalid_request', 'Gemini image models take no mask: describe the region to change in the prompt'));
      }
      return call(request, Array.isArray(request.image) ? request.image : [request.image], opts);
    },
  };
}
