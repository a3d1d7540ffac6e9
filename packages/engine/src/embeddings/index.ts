export {
  type EmbeddingBatch,
  type EmbeddingCallOptions,
  type EmbeddingModel,
  type EmbeddingSettings,
  type EmbedManyOptions,
  type EmbedManyResult,
  type EmbedOptions,
  type EmbedResult,
  embed,
  embedMany,
} from './embedding-model.ts';
export { type GoogleEmbeddingOptions, googleEmbeddingModel } from './google-embeddings.ts';
export { type OllamaEmbeddingOptions, ollamaEmbeddingModel } from './ollama-embeddings.ts';
export {
  mistralEmbeddingModel,
  type OpenAICompatibleEmbeddingOptions,
  type OpenAIStyleEmbeddingOptions,
  openaiCompatibleEmbeddingModel,
  openaiEmbeddingModel,
} from './openai-embeddings.ts';
export { resolveEmbeddingModel } from './resolve-embedding-model.ts';
