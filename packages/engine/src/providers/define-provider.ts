/**
 * `defineProvider` turns a definition into a Provider: `provider.model(id)` gives a
 * LanguageModel, `provider.withSettings({ apiKey })` a configured copy. Settings live
 * in closures only, so `JSON.stringify(provider)` or a logged model never shows a key.
 */
import { FULL_KIT } from './full-kit.ts';
import type { ProviderKit } from './provider-kit.ts';
import { createProviderModel } from './provider-model.ts';
import type { Provider, ProviderDefinition, ProviderSettings } from './types.ts';

function mergeSettings(base: ProviderSettings, extra: ProviderSettings | undefined): ProviderSettings {
  if (!extra) return base;
  const merged: ProviderSettings = { ...base, ...extra };
  if (base.headers || extra.headers) merged.headers = { ...base.headers, ...extra.headers };
  return merged;
}

/**
 * A provider from its definition (base URL, auth, dialect, quirks); `model(id)` gives a LanguageModel. Keys live in closures only.
 * Its models may speak any of the five dialects and are looked up in the whole catalog, so a bundle
 * with a defined provider holds them all; the built-in providers' entry points
 * (`@parlance/engine/providers/<id>`) hold only their own.
 *
 * @example
 * const acme = defineProvider({ id: 'acme', baseURL: 'https://llm.acme.dev/v1', auth: { env: 'ACME_API_KEY' }, dialect: 'openai_completions' });
 * const model = acme.model('acme-large');
 */
export function defineProvider(definition: ProviderDefinition, settings: ProviderSettings = {}): Provider {
  return createProvider(definition, FULL_KIT, settings);
}

/**
 * A provider whose models use only the dialects and catalog tables of `kit`: what each built-in
 * provider's module calls (marked `@__PURE__`, so an unused one leaves the bundle).
 */
export function createProvider(definition: ProviderDefinition, kit: ProviderKit, settings: ProviderSettings = {}): Provider {
  const provider: Provider = {
    id: definition.id,
    name: definition.name ?? definition.id,
    baseURL: settings.baseURL ?? definition.baseURL,
    dialect: settings.dialect ?? definition.dialect,
    definition,
    model: (modelId, extra) => createProviderModel(definition, modelId, mergeSettings(settings, extra), kit),
    withSettings: (extra) => createProvider(definition, kit, mergeSettings(settings, extra)),
    toJSON: () => ({ id: provider.id, name: provider.name, baseURL: provider.baseURL, dialect: provider.dialect }),
  };
  return provider;
}
