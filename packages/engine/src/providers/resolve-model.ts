/**
 * `resolveModel('anthropic:claude-sonnet-4-5')` -> a LanguageModel. The provider id
 * is everything before the first colon; the model id keeps any later ones
 * (`ollama:llama3.2:3b`, `openrouter:deepseek/deepseek-r1:free`).
 */
import { ParlanceError, type LanguageModel } from '@parlance/protocol';
import { builtinProviders } from './builtin/index.ts';
import type { Provider, ProviderSettings } from './types.ts';

/**
 * Settings for the resolved model, plus providers of your own by id.
 *
 * @example
 * resolveModel('acme:large', { providers: { acme }, apiKey: process.env.ACME_KEY });
 */
export interface ResolveModelOptions extends ProviderSettings {
  /** Providers to resolve ids against, over the built-in ones (your `defineProvider`s). */
  providers?: Record<string, Provider>;
}

/**
 * A model named by provider and id, with settings for it.
 *
 * @example
 * resolveModel({ provider: 'openai', model: 'gpt-5-mini', baseURL: 'https://proxy.internal/v1' });
 */
export interface ModelSpec extends ProviderSettings {
  provider: string | Provider;
  model: string;
}

/**
 * Whether a value is a LanguageModel (anything with `provider`, `modelId` and `stream`).
 *
 * @example
 * const model = isLanguageModel(spec) ? spec : resolveModel(spec);
 */
export function isLanguageModel(value: unknown): value is LanguageModel {
  return typeof value === 'object' && value !== null && typeof (value as LanguageModel).stream === 'function';
}

function findProvider(id: string, options: ResolveModelOptions): Provider {
  const provider = options.providers?.[id] ?? builtinProviders[id];
  if (!provider) {
    const known = [...new Set([...Object.keys(options.providers ?? {}), ...Object.keys(builtinProviders)])].join(', ');
    throw new ParlanceError('invalid_request', `Unknown provider "${id}". Known providers: ${known}`, { retryable: false });
  }
  return provider;
}

/**
 * Turns 'provider:model', a `{ provider, model }` spec, or a LanguageModel into a LanguageModel.
 *
 * @example
 * const model = resolveModel('openai:gpt-5-mini', { apiKey: process.env.MY_OPENAI_KEY });
 * const local = resolveModel({ provider: 'ollama', model: 'llama3.2' });
 */
export function resolveModel(spec: string | ModelSpec | LanguageModel, options: ResolveModelOptions = {}): LanguageModel {
  if (isLanguageModel(spec)) return spec;
  const { providers: _providers, ...settings } = options;
  if (typeof spec === 'string') {
    const colon = spec.indexOf(':');
    if (colon <= 0 || colon === spec.length - 1) {
      throw new ParlanceError('invalid_request', `Model "${spec}" must be written "provider:model", e.g. "openai:gpt-5"`, {
        retryable: false,
      });
    }
    return findProvider(spec.slice(0, colon), options).model(spec.slice(colon + 1), settings);
  }
  const { provider, model, ...specSettings } = spec;
  const resolved = typeof provider === 'string' ? findProvider(provider, options) : provider;
  return resolved.model(model, { ...settings, ...specSettings });
}
