/**
 * A fake image model for tests: answers every call with scripted images (a 1x1 PNG
 * by default) and records what it was asked. It has the shape of the engine's
 * `ImageModel` (structurally; this package does not depend on the engine).
 */
import { ParlanceError, type FilePart } from '@parlance/protocol';

/**
 * A 1x1 transparent PNG.
 *
 * @example
 * const part = { type: 'file', mediaType: 'image/png', data: TINY_PNG_BASE64 } as const;
 */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * Which method of a fake image model was called.
 *
 * @example
 * const generated = model.calls.filter((c) => c.call === ('generate' satisfies FakeImageCall));
 */
export type FakeImageCall = 'generate' | 'edit' | 'variations';

/**
 * The fields the fake reads; the whole request (image, mask, size...) is recorded.
 *
 * @example
 * await model.generate({ prompt: 'a cat', n: 2 } satisfies FakeImageRequest);
 */
export interface FakeImageRequest {
  prompt?: string;
  n?: number;
}

/**
 * 
 *
 * @example
 * const options: FakeImageModelOptions = { error: { code: 'rate_limited', message: 'Slow down', status: 429 } };
 */
export interface FakeImageModelOptions {
  provider?: string;
  modelId?: string;
  /** Images per call (default: `n` copies of a 1x1 PNG), or a function of the call. */
  images?: FilePart[] | ((call: FakeImageCall, request: FakeImageRequest) => FilePart[]);
  /** Fail every call with this error. */
  error?: { code: ParlanceError['code']; message: string; status?: number };
}

/**
 * An `ImageModel` for tests that records every call.
 *
 * @example
 * expect(model.calls.map((c) => c.call)).toEqual(['generate']);
 */
export interface FakeImageModel {
  readonly provider: string;
  readonly modelId: string;
  readonly calls: { call: FakeImageCall; request: FakeImageRequest }[];
  generate(request: FakeImageRequest, options?: { signal?: AbortSignal }): Promise<{ images: FilePart[] }>;
  edit(request: FakeImageRequest, options?: { signal?: AbortSignal }): Promise<{ images: FilePart[] }>;
  variations(request: FakeImageRequest, options?: { signal?: AbortSignal }): Promise<{ images: FilePart[] }>;
}

/**
 * A scripted image model for tests: returns tiny PNGs (or your images, or an error) and records every request.
 *
 * @example
 * const model = fakeImageModel();
 * const { images } = await generateImage(model, { prompt: 'a red square', n: 2 });
 */
export function fakeImageModel(options: FakeImageModelOptions = {}): FakeImageModel {
  const calls: FakeImageModel['calls'] = [];
  const answer = async (call: FakeImageCall, request: FakeImageRequest, signal?: AbortSignal) => {
    calls.push({ call, request: structuredClone(request) });
    if (signal?.aborted) throw new ParlanceError('aborted', 'The image request was aborted');
    if (options.error) {
      const { code, message, status } = options.error;
      throw new ParlanceError(code, message, status === undefined ? {} : { status });
    }
    if (typeof options.images === 'function') return { images: options.images(call, request) };
    if (options.images) return { images: options.images };
    const image: FilePart = { type: 'file', mediaType: 'image/png', data: TINY_PNG_BASE64 };
    return { images: Array.from({ length: request.n ?? 1 }, () => ({ ...image })) };
  };
  return {
    provider: options.provider ?? 'fake',
    modelId: options.modelId ?? 'fake-image',
    calls,
    generate: (request, o) => answer('generate', request, o?.signal),
    edit: (request, o) => answer('edit', request, o?.signal),
    variations: (request, o) => answer('variations', request, o?.signal),
  };
}
