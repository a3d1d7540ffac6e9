/**
 * 'provider:model' strings for image models, like `resolveModel` for language models.
 * Keys come from the injected env (never read from globals here).
 */
import { ParlanceError } from '@parlance/protocol';
import { geminiImageModel } from './gemini-images.ts';
import type { ImageModel } from './image-model.ts';
import { openaiImageModel } from './openai-images.ts';

/**
 * 
 *
 * @example
 * resolveImageModel('openai:gpt-image-1', { baseURL: 'https://proxy.internal/v1' });
 */
export interface ResolveImageModelOptions {
  env?: Record<string, string | undefined>;
  fetch?: typeof globalThis.fetch;
  baseURL?: string;
}

/**
 * Turns 'provider:model' (openai, google) or an ImageModel into an ImageModel, keys from the environment.
 *
 * @example
 * const model = resolveImageModel('google:gemini-2.5-flash-image');
 */
export function resolveImageModel(spec: string | ImageModel, options: ResolveImageModelOptions = {}): ImageModel {
  if (typeof spec !== 'string') return spec;
  const at = spec.indexOf(':');
  const provider = at > 0 ? spec.slice(0, at) : '';
  const modelId = spec.slice(at + 1);
  const env = options.env ?? {};
  const key = (names: string[]) => {
    for (const name of names) if (env[name]) return env[name]!;
    throw new ParlanceError('authentication', `No API key for ${provider} images: set ${names.join(' or ')}`);
  };
  const common = {
    modelId,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
  };
  if (provider === 'openai') return openaiImageModel({ ...common, apiKey: key(['OPENAI_API_KEY']) });
  if (provider === 'google' || provider === 'gemini') return geminiImageModel({ ...common, apiKey: key(['GEMINI_API_KEY', 'GOOGLE_API_KEY']) });
  throw new ParlanceError('invalid_request', `Unknown image model "${spec}": use "openai:<model>" or "google:<model>"`);
}
