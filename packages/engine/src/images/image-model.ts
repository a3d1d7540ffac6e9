/**
 * Image generation: a small contract (`ImageModel`) with OpenAI Images and Gemini
 * image models behind it, and three calls that check the model can do what is asked.
 * Results are `FilePart`s, so they drop straight into a message.
 */
import { ParlanceError, errorCodeForStatus, isAbortError, type FilePart, type Usage } from '@parlance/protocol';

/**
 * An input image: base64 `data` (a URL-only FilePart must be downloaded first).
 *
 * @example
 * const input: ImageInput = { data: pngBase64, mediaType: 'image/png', filename: 'door.png' };
 */
export interface ImageInput {
  data: string;
  mediaType: string;
  filename?: string;
}

/**
 * What `generateImage` takes: a prompt, how many, size or aspect ratio.
 *
 * @example
 * await generateImage(model, { prompt: 'a blue door', n: 1, size: '1024x1024' });
 */
export interface ImageGenerateRequest {
  prompt: string;
  /** Number of images (OpenAI `n`, Gemini `candidateCount`). */
  n?: number;
  /** OpenAI size, e.g. '1024x1024'. */
  size?: string;
  /** Gemini aspect ratio, e.g. '16:9'. */
  aspectRatio?: string;
  quality?: string;
  /** Provider-specific fields, merged verbatim into the body. */
  extra?: Record<string, unknown>;
}

/**
 * What `editImage` takes: a prompt and the image(s) to edit.
 *
 * @example
 * await editImage(model, { prompt: 'add snow', image: { data: pngBase64, mediaType: 'image/png' } });
 */
export interface ImageEditRequest extends ImageGenerateRequest {
  image: ImageInput | ImageInput[];
  /** Transparent areas mark where to edit (OpenAI only). */
  mask?: ImageInput;
}

/**
 * What `imageVariations` takes.
 *
 * @example
 * await imageVariations(model, { image: { data: pngBase64, mediaType: 'image/png' }, n: 2 });
 */
export interface ImageVariationRequest {
  image: ImageInput;
  n?: number;
  size?: string;
  extra?: Record<string, unknown>;
}

/**
 * What the image functions resolve to: the images as file parts, and any text.
 *
 * @example
 * const { images: [first] } = await generateImage(model, { prompt: 'a red kite' });
 */
export interface ImageResult {
  images: FilePart[];
  /** Text the model wrote beside the images (Gemini) or the prompts it rewrote (DALL-E 3). */
  text?: string;
  revisedPrompts?: string[];
  usage?: Usage;
}

/**
 * 
 *
 * @example
 * await generateImage(model, { prompt: 'a fox', signal: AbortSignal.timeout(90_000) });
 */
export interface ImageCallOptions {
  signal?: AbortSignal;
}

/**
 * An image model: generate, edit, variations (what the image functions call).
 *
 * @example
 * const model: ImageModel = openaiImageModel({ modelId: 'gpt-image-1', apiKey: key });
 */
export interface ImageModel {
  readonly provider: string;
  readonly modelId: string;
  generate(request: ImageGenerateRequest, options?: ImageCallOptions): Promise<ImageResult>;
  edit?(request: ImageEditRequest, options?: ImageCallOptions): Promise<ImageResult>;
  variations?(request: ImageVariationRequest, options?: ImageCallOptions): Promise<ImageResult>;
}

/**
 * Generates images from a prompt with an image model (OpenAI, Gemini, or your own).
 *
 * @example
 * const { images } = await generateImage(resolveImageModel('openai:gpt-image-1'), { prompt: 'a lighthouse at dusk', size: '1024x1024' });
 */
export async function generateImage(model: ImageModel, request: ImageGenerateRequest & ImageCallOptions): Promise<ImageResult> {
  const { signal, ...rest } = request;
  return model.generate(rest, signal ? { signal } : {});
}

/**
 * Edits images (with an optional mask) from a prompt.
 *
 * @example
 * const { images } = await editImage(model, { prompt: 'make it night', image: { mediaType: 'image/png', data: pngBase64 } });
 */
export async function editImage(model: ImageModel, request: ImageEditRequest & ImageCallOptions): Promise<ImageResult> {
  if (!model.edit) throw unsupported(model, 'editing');
  const { signal, ...rest } = request;
  return model.edit(rest, signal ? { signal } : {});
}

/**
 * Variations of an image.
 *
 * @example
 * const { images } = await imageVariations(model, { image: { mediaType: 'image/png', data: pngBase64 }, n: 3 });
 */
export async function imageVariations(model: ImageModel, request: ImageVariationRequest & ImageCallOptions): Promise<ImageResult> {
  if (!model.variations) throw unsupported(model, 'variations');
  const { signal, ...rest } = request;
  return model.variations(rest, signal ? { signal } : {});
}

function unsupported(model: ImageModel, what: string): ParlanceError {
  return new ParlanceError('invalid_request', `The image model ${model.provider}:${model.modelId} does not support ${what}`);
}

/** Base64 to a Blob for multipart bodies (atob: available in browsers, Node and workers). */
export function toBlob(image: ImageInput): Blob {
  const binary = atob(image.data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type: image.mediaType });
}

/** POSTs and parses JSON; HTTP and network failures become ParlanceErrors with stable codes. */
export async function postJson(
  fetchImpl: typeof globalThis.fetch,
  url: string,
  init: { headers: Record<string, string>; body: BodyInit; signal?: AbortSignal },
): Promise<Record<string, unknown>> {
  let response: globalThis.Response;
  try {
    response = await fetchImpl(url, { method: 'POST', ...init });
  } catch (error) {
    if (isAbortError(error)) throw new ParlanceError('aborted', 'The image request was aborted', { cause: error });
    throw new ParlanceError('network', `The image request failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? (text.slice(0, 200) || response.statusText);
    throw new ParlanceError(errorCodeForStatus(response.status), message, { status: response.status });
  }
  if (typeof body !== 'object' || body === null) throw new ParlanceError('invalid_response', 'The image API did not answer with JSON');
  return body as Record<string, unknown>;
}
