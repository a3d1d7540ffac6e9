export {
  embed,
  embedMany,
  type EmbedManyOptions,
  type EmbedManyResult,
  type EmbedOptions,
  type EmbedResult,
  type EmbeddingBatch,
  type EmbeddingCallOptions,
  type EmbeddingModel,
  type EmbeddingSettings,
} from './embedding-model.ts';
export { googleEmbeddingModel, type GoogleEmbeddingOptions } from './google-embeddings.ts';
export { ollamaEmbeddingModel, type OllamaEmbeddingOptions } from './ollama-embeddings.ts';
export {
  mistralEmbeddingModel,
  openaiCompatibleEmbeddingModel,
  openaiEmbeddingModel,
  type OpenAICompatibleEmbeddingOptions,
  type OpenAIStyleEmbeddingOptions,
} from './openai-embeddings.ts';
export { resolveEmbeddingModel } from './resolve-embedding-model.ts';
