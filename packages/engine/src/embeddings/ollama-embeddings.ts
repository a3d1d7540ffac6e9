/**
 * Ollama's `/api/embed` (a list of inputs in one request; `prompt_eval_count` is the
 * tokens read). https://github.com/ollama/ollama/blob/main/docs/api.md#generate-embeddings
 * Ollama documents no batch limit; batches of 512 keep one request's body and the
 * server's memory modest (`maxBatchSize` changes it).
 */
import { ParlanceError } from '@parlance/protocol';
import { arrayField, mediaModelBase } from '../providers/api-client.ts';
import { ollama } from '../providers/builtin/index.ts';
import type { ProviderSettings } from '../providers/types.ts';
import type { EmbeddingBatch, EmbeddingModel } from './embedding-model.ts';

/**
 * 
 *
 * @example
 * ollamaEmbeddingModel('nomic-embed-text', { baseURL: 'http://gpu-box:11434' });
 */
export interface OllamaEmbeddingOptions extends ProviderSettings {
  maxBatchSize?: number;
}

/**
 * A local (or Ollama cloud) embedding model, e.g. `nomic-embed-text`, `embeddinggemma`.
 *
 * @example
 * ```ts
 * const model = ollamaEmbeddingModel('nomic-embed-text');
 * const { embeddings } = await embedMany(model, { values: notes });
 * ```
 */
export function ollamaEmbeddingModel(modelId: string, options: OllamaEmbeddingOptions = {}): EmbeddingModel {
  const { maxBatchSize, ...settings } = options;
  const { client, base } = mediaModelBase(ollama.definition, modelId, settings);
  const { info } = base;
  return {
    ...base,
    maxBatchSize: Math.max(1, Math.min(info.maxBatchSize ?? 512, maxBatchSize ?? Infinity)),
    async embedBatch(values, request, call = {}): Promise<EmbeddingBatch> {
      const body: Record<string, unknown> = { model: modelId, input: values };
      if (request.dimensions !== undefined) body.dimensions = request.dimensions;
      Object.assign(body, request.extra);
      const answer = await client.postJson('/api/embed', body, call);
      const vectors = arrayField(answer, 'embeddings', client.providerName);
      vectors.forEach((vector, i) => {
        if (!Array.isArray(vector)) throw new ParlanceError('invalid_response', `${client.providerName} returned an unreadable embedding at embeddings[${i}]`);
      });
      const result: EmbeddingBatch = { embeddings: vectors as number[][] };
      if (typeof answer.prompt_eval_count === 'number') result.usage = { inputTokens: answer.prompt_eval_count };
      return result;
    },
  };
}
