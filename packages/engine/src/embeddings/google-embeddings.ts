/**
 * Gemini embeddings through `batchEmbedContents` (up to 100 texts a request), the key in
 * the `x-goog-api-key` header like the chat models.
 * https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
 * Settings go in each request's `embedContentConfig` (the top-level `taskType` and
 * `outputDimensionality` are deprecated in the published schema).
 */
import { modelPathSegment } from '@parlance/dialects';
import { ParlanceError, type Usage } from '@parlance/protocol';
import { arrayField, mediaModelBase } from '../providers/api-client.ts';
import { google } from '../providers/builtin/index.ts';
import type { ProviderSettings } from '../providers/types.ts';
import type { EmbeddingBatch, EmbeddingModel } from './embedding-model.ts';

/**
 * 
 *
 * @example
 * googleEmbeddingModel('gemini-embedding-001', { maxBatchSize: 50 });
 */
export interface GoogleEmbeddingOptions extends ProviderSettings {
  maxBatchSize?: number;
}

/**
 * A Gemini embedding model (`gemini-embedding-001`). The key comes from `apiKey` or
 * `GEMINI_API_KEY` / `GOOGLE_GENERATIVE_AI_API_KEY` / `GOOGLE_API_KEY`.
 *
 * @example
 * ```ts
 * const model = googleEmbeddingModel('gemini-embedding-001');
 * const { embeddings } = await embedMany(model, { values: docs, taskType: 'RETRIEVAL_DOCUMENT', dimensions: 768 });
 * ```
 */
export function googleEmbeddingModel(modelId: string, options: GoogleEmbeddingOptions = {}): EmbeddingModel {
  const { maxBatchSize, ...settings } = options;
  const { client, base } = mediaModelBase(google.definition, modelId, settings);
  const { info } = base;
  const name = `models/${modelId}`;
  return {
    ...base,
    maxBatchSize: Math.max(1, Math.min(info.maxBatchSize ?? 100, maxBatchSize ?? Infinity)),
    async embedBatch(values, request, call = {}): Promise<EmbeddingBatch> {
      const config: Record<string, unknown> = {};
      if (request.taskType !== undefined) config.taskType = request.taskType;
      if (request.dimensions !== undefined) config.outputDimensionality = request.dimensions;
      const requests = values.map((text) => {
        const one: Record<string, unknown> = { model: name, content: { parts: [{ text }] } };
        if (Object.keys(config).length > 0) one.embedContentConfig = config;
        return one;
      });
      const answer = await client.postJson(`/v1beta/models/${modelPathSegment(modelId)}:batchEmbedContents`, { requests, ...request.extra }, call);
      const items = arrayField(answer, 'embeddings', client.providerName) as { values?: unknown }[];
      const embeddings = items.map((item, i) => {
        if (!Array.isArray(item?.values)) throw new ParlanceError('invalid_response', `${client.providerName} returned an unreadable embedding at embeddings[${i}]`);
        return item.values as number[];
      });
      const result: EmbeddingBatch = { embeddings };
      const meta = answer.usageMetadata as { promptTokenCount?: number } | undefined;
      if (typeof meta?.promptTokenCount === 'number') {
        const usage: Usage = { inputTokens: meta.promptTokenCount };
        result.usage = usage;
      }
      return result;
    },
  };
}
