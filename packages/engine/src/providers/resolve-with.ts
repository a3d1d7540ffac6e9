/**
 * `'provider:model'` -> a LanguageModel against a given set of providers only. No built-in
 * provider is imported here: `resolveModel` (./resolve-model.ts) adds them all, while
 * `resolveModelWith([anthropic])` bundles only the providers it is given.
 */
import { ParlanceError, type LanguageModel } from '@parlance/protocol';
import type { ModelResolver } from '../options.ts';
import type { Provider, ProviderSettings } from './types.ts';

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

function findProvider(id: string, providers: Readonly<Record<string, Provider>>): Provider {
  const provider = Object.hasOwn(providers, id) ? providers[id] : undefined;
  if (!provider) {
    throw new ParlanceError('invalid_request', `Unknown provider "${id}". Known providers: ${Object.keys(providers).join(', ')}`, { retryable: false });
  }
  return provider;
}

/** Resolves a spec against `providers` by id (the id is everything before the first colon). */
export function resolveAgainst(
  spec: string | ModelSpec | LanguageModel,
  providers: Readonly<Record<string, Provider>>,
  settings: ProviderSettings,
): LanguageModel {
  if (isLanguageModel(spec)) return spec;
  if (typeof spec === 'string') {
    const colon = spec.indexOf(':');
    if (colon <= 0 || colon === spec.length - 1) {
      throw new ParlanceError('invalid_request', `Model "${spec}" must be written "provider:model", e.g. "openai:gpt-5"`, {
        retryable: false,
      });
    }
    return findProvider(spec.slice(0, colon), providers).model(spec.slice(colon + 1), settings);
  }
  const { provider, model, ...specSettings } = spec;
  const resolved = typeof provider === 'string' ? findProvider(provider, providers) : provider;
  return resolved.model(model, { ...settings, ...specSettings });
}

/**
 * A model resolver that knows only `providers` (by their ids): `'anthropic:claude-sonnet-4-5'`
 * with `[anthropic]` from `@parlance/engine/providers/anthropic`. Unlike `resolveModel` it bundles
 * no other provider, dialect or catalog table; an id it does not know is an `invalid_request`
 * naming the ones it does.
 *
 * @example
 * import { anthropic } from '@parlance/engine/providers/anthropic';
 * const resolve = resolveModelWith([anthropic]);
 * const model = resolve('anthropic:claude-sonnet-4-5', { env: workerEnv });
 */
export function resolveModelWith(providers: readonly Provider[]): ModelResolver {
  const byId: Record<string, Provider> = {};
  for (const provider of providers) byId[provider.id] = provider;
  return (spec, options) => resolveAgainst(spec, byId, options);
}
