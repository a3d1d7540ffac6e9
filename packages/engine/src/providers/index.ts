/**
 * Providers, the fetch transport and the model catalog: everything between a
 * `'provider:model'` string and a stream of protocol events.
 */
export {
  alibaba,
  anthropic,
  builtinProviders,
  cerebras,
  deepseek,
  fireworks,
  google,
  groq,
  mistral,
  moonshot,
  ollama,
  openai,
  openrouter,
  together,
  xai,
  zai,
} from './builtin/index.ts';
export { defineProvider } from './define-provider.ts';
export { withFallback, type FallbackInfo, type FallbackModel, type FallbackOptions } from './fallback.ts';
export { openaiCompatible, type OpenAICompatibleOptions } from './openai-compatible.ts';
export { adjustRequest, checkInput, clampEffort } from './prepare-request.ts';
export { createProviderModel } from './provider-model.ts';
export { isLanguageModel, resolveModel, type ModelSpec, type ResolveModelOptions } from './resolve-model.ts';
export { resolveModelWith } from './resolve-with.ts';
export type {
  ApiKeyAuth,
  ApiKeySource,
  AuthDefinition,
  AuthorizeRequest,
  ModelCatalogEntry,
  ModelContext,
  Provider,
  ProviderDefinition,
  ProviderModel,
  ProviderSettings,
  WireDialect,
} from './types.ts';
export {
  UNKNOWN_MODEL_DEFAULTS,
  computeCost,
  getModelInfo,
  listModels,
  modelInfoFromTable,
  type CatalogEntry,
  type CatalogTable,
  type InputModality,
  type ModelInfo,
  type ModelPricing,
} from '../catalog/catalog.ts';
export {
  createTransport,
  decodeResponse,
  isRetryableStatus,
  parseRetryAfter,
  readErrorBody,
  envSecrets,
  REDACTED,
  redact,
  redactForms,
  secretForms,
  type ErrorBodyParser,
  type OpenResult,
  type OpenedStream,
  type ProviderErrorInfo,
  type RetryInfo,
  type RetryOptions,
  type Sleep,
  type TimeoutOptions,
  type Transport,
  type ProviderTransportOptions,
  type TransportRequest,
} from '../transport/index.ts';
