/**
 * OpenAI Images API.
 * - Generations (JSON): https://platform.openai.com/docs/api-reference/images/create
 * - Edits (multipart, optional mask): https://platform.openai.com/docs/api-reference/images/createEdit
 * - Variations (multipart, dall-e-2): https://platform.openai.com/docs/api-reference/images/createVariation
 * GPT image models always return base64; DALL-E models return URLs unless asked
 * for `response_format: b64_json`, which we ask for so results need no second download.
 */
import { ParlanceError, type FilePart, type Usage } from '@parlance/protocol';
import { checkModelId, sealedURL } from '../providers/provider-url.ts';
import {
  postJson,
  toBlob,
  type ImageCallOptions,
  type ImageEditRequest,
  type ImageGenerateRequest,
  type ImageModel,
  type ImageResult,
  type ImageVariationRequest,
} from './image-model.ts';

/**
 * 
 *
 * @example
 * openaiImageModel({ modelId: 'gpt-image-1', apiKey: key });
 */
export interface OpenAIImageModelOptions {
  modelId: string;
  apiKey: string;
  baseURL?: string;
  fetch?: typeof globalThis.fetch;
  headers?: Record<string, string>;
}

interface OpenAIImagesResponse {
  data?: { b64_json?: string; url?: string; revised_prompt?: string }[];
  output_format?: string;
  usage?: { input_tokens?: number; output_tokens?: number; total_tokens?: number };
}

function toResult(body: OpenAIImagesResponse): ImageResult {
  const mediaType = `image/${body.output_format ?? 'png'}`;
  const images: FilePart[] = [];
  const revised: string[] = [];
  for (const item of body.data ?? []) {
    if (item.b64_json) images.push({ type: 'file', mediaType, data: item.b64_json });
    else if (item.url) images.push({ type: 'file', mediaType, url: item.url });
    if (item.revised_prompt) revised.push(item.revised_prompt);
  }
  if (images.length === 0) throw new ParlanceError('invalid_response', 'The image API returned no images');
  const result: ImageResult = { images };
  if (revised.length) result.revisedPrompts = revised;
  if (body.usage) {
    const usage: Usage = {};
    if (body.usage.input_tokens !== undefined) usage.inputTokens = body.usage.input_tokens;
    if (body.usage.output_tokens !== undefined) usage.outputTokens = body.usage.output_tokens;
    if (body.usage.total_tokens !== undefined) usage.totalTokens = body.usage.total_tokens;
    result.usage = usage;
  }
  return result;
}

/**
 * An image model on OpenAI's Images API.
 *
 * @example
 * const model = openaiImageModel({ modelId: 'gpt-image-1', apiKey: process.env.OPENAI_API_KEY! });
 */
export function openaiImageModel(options: OpenAIImageModelOptions): ImageModel {
  checkModelId(options.modelId);
  const base = (options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const dalle = options.modelId.startsWith('dall-e');
  const auth = { authorization: `Bearer ${options.apiKey}`, ...options.headers };

  const post = async (path: string, body: BodyInit, json: boolean, call: ImageCallOptions) => {
    const headers = json ? { ...auth, 'content-type': 'application/json' } : auth;
    const init: { headers: Record<string, string>; body: BodyInit; signal?: AbortSignal } = { headers, body };
    if (call.signal) init.signal = call.signal;
    return toResult((await postJson(fetchImpl, sealedURL(base, path), init)) as OpenAIImagesResponse);
  };

  const form = (fields: Record<string, unknown>): FormData => {
    const data = new FormData();
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) data.append(key, String(value));
    return data;
  };

  return {
    provider: 'openai',
    modelId: options.modelId,
    generate(request: ImageGenerateRequest, call = {}) {
      const body: Record<string, unknown> = { model: options.modelId, prompt: request.prompt };
      if (request.n !== undefined) body.n = request.n;
      if (request.size !== undefined) body.size = request.size;
      if (request.quality !== undefined) body.quality = request.quality;
      if (dalle) body.response_format = 'b64_json';
      return post('/images/generations', JSON.stringify({ ...body, ...request.extra }), true, call);
    },
    edit(request: ImageEditRequest, call = {}) {
      const images = Array.isArray(request.image) ? request.image : [request.image];
      const data = form({
        model: options.modelId,
        prompt: request.prompt,
        n: request.n,
        size: request.size,
        quality: request.quality,
        response_format: dalle ? 'b64_json' : undefined,
        ...request.extra,
      });
      // GPT image models take several input images as `image[]`; DALL-E 2 takes one `image`.
      images.forEach((image, i) => {
        data.append(images.length > 1 ? 'image[]' : 'image', toBlob(image), image.filename ?? `image-${i}.png`);
      });
      if (request.mask) data.append('mask', toBlob(request.mask), request.mask.filename ?? 'mask.png');
      return post('/images/edits', data, false, call);
    },
    variations(request: ImageVariationRequest, call = {}) {
      const data = form({ model: options.modelId, n: request.n, size: request.size, response_format: 'b64_json', ...request.extra });
      data.append('image', toBlob(request.image), request.image.filename ?? 'image.png');
      return post('/images/variations', data, false, call);
    },
  };
}
