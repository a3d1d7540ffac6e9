/**
 * Any server that speaks Chat Completions (vLLM, LM Studio, llama.cpp server, a proxy):
 * `openaiCompatible({ baseURL: 'http://localhost:8000/v1' }).model('my-model')`.
 * The key is optional (local servers take none); `apiKeyEnv` names a variable to read it from.
 */
import type { DecoderOptions } from '@parlance/dialects';
import type { ErrorBodyParser } from '../transport/http-error.ts';
import { defineProvider } from './define-provider.ts';
import type { ModelCatalogEntry, Provider, ProviderDefinition, ProviderSettings } from './types.ts';

/**
 * 
 *
 * @example
 * openaiCompatible({ baseURL: 'http://127.0.0.1:1234/v1', id: 'lmstudio', apiKeyEnv: 'LMSTUDIO_API_KEY' });
 */
export interface OpenAICompatibleOptions extends ProviderSettings {
  baseURL: string;
  /** The provider id in provenance and errors (default 'openai-compatible'). */
  id?: string;
  name?: string;
  apiKeyEnv?: string | string[];
  /** Require a key (fail before any request when none is found). Default false. */
  requireApiKey?: boolean;
  decoderOptions?: DecoderOptions;
  /** What the catalog cannot know about your models (context window, image input, prices). */
  models?: Record<string, ModelCatalogEntry>;
  /** A catalog table to look models up in (e.g. 'openai' for a proxy of OpenAI's models). */
  catalog?: string;
  modifyBody?: ProviderDefinition['modifyBody'];
  modifyEvents?: ProviderDefinition['modifyEvents'];
  parseError?: ErrorBodyParser;
}

/**
 * Any server that speaks OpenAI Chat Completions (vLLM, llama.cpp, LM Studio, a gateway).
 *
 * @example
 * const local = openaiCompatible({ baseURL: 'http://127.0.0.1:8000/v1', id: 'vllm' });
 * await createEngine().chat({ model: local.model('Qwen/Qwen3-8B'), prompt: 'Hi' });
 */
export function openaiCompatible(options: OpenAICompatibleOptions): Provider {
  const { id, name, apiKeyEnv, requireApiKey, decoderOptions, models, catalog, modifyBody, modifyEvents, parseError, ...settings } =
    options;
  const definition: ProviderDefinition = {
    id: id ?? 'openai-compatible',
    name: name ?? id ?? 'OpenAI-compatible server',
    baseURL: options.baseURL,
    auth: apiKeyEnv === undefined ? { optional: !requireApiKey } : { env: apiKeyEnv, optional: !requireApiKey },
    dialect: 'openai_completions',
  };
  if (decoderOptions) definition.decoderOptions = decoderOptions;
  if (models) definition.models = models;
  if (catalog) definition.catalog = catalog;
  if (modifyBody) definition.modifyBody = modifyBody;
  if (modifyEvents) definition.modifyEvents = modifyEvents;
  if (parseError) definition.parseError = parseError;
  return defineProvider(definition, settings);
}
