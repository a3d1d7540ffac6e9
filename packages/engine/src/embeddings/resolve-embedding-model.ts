import { splitSpec } from '../media/split-spec.ts';
import type { ProviderSettings } from '../providers/types.ts';
import type { EmbeddingModel } from './embedding-model.ts';
import { googleEmbeddingModel } from './google-embeddings.ts';
import { ollamaEmbeddingModel } from './ollama-embeddings.ts';
import { mistralEmbeddingModel, openaiEmbeddingModel } from './openai-embeddings.ts';

/**
 * An embedding model from a 'provider:model' string: `openai:`, `google:` (or `gemini:`),
 * `mistral:`, `ollama:`. Settings (key, env, fetch, baseURL, retries, timeouts) apply to
 * the provider. A model the catalog knows as another kind is an `invalid_request`.
 *
 * @example
 * ```ts
 * const model = resolveEmbeddingModel('mistral:mistral-embed', { env: c.env });
 * ```
 */
export function resolveEmbeddingModel(spec: string | EmbeddingModel, settings: ProviderSettings = {}): EmbeddingModel {
  if (typeof spec !== 'string') return spec;
  const { provider, modelId } = splitSpec(spec, 'embedding', ['openai', 'google', 'mistral', 'ollama']);
  if (provider === 'openai') return openaiEmbeddingModel(modelId, settings);
  if (provider === 'google') return googleEmbeddingModel(modelId, settings);
  if (provider === 'mistral') return mistralEmbeddingModel(modelId, settings);
  return ollamaEmbeddingModel(modelId, settings);
}
