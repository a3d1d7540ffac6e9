/**
 * `resolveModel('anthropic:claude-sonnet-4-5')` -> a LanguageModel. The provider id
 * is everything before the first colon; the model id keeps any later ones
 * (`ollama:llama3.2:3b`, `openrouter:deepseek/deepseek-r1:free`). Knows every built-in
 * provider, so it bundles them all; `resolveModelWith` (./resolve-with.ts) knows only those given.
 */
import type { LanguageModel } from '@parlance/protocol';
import { builtinProviders } from './builtin/index.ts';
import { type ModelSpec, resolveAgainst } from './resolve-with.ts';
import type { Provider, ProviderSettings } from './types.ts';

export { isLanguageModel, type ModelSpec } from './resolve-with.ts';

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
 * Turns 'provider:model', a `{ provider, model }` spec, or a LanguageModel into a LanguageModel.
 *
 * @example
 * const model = resolveModel('openai:gpt-5-mini', { apiKey: process.env.MY_OPENAI_KEY });
 * const local = resolveModel({ provider: 'ollama', model: 'llama3.2' });
 */
export function resolveModel(spec: string | ModelSpec | LanguageModel, options: ResolveModelOptions = {}): LanguageModel {
  const { providers, ...settings } = options;
  if (!providers) return resolveAgainst(spec, builtinProviders, settings);
  // Yours first (they win over a built-in of the same id, and head the list of known ids in an error).
  const table: Record<string, Provider> = { ...providers };
  for (const [id, provider] of Object.entries(builtinProviders)) if (!Object.hasOwn(table, id)) table[id] = provider;
  return resolveAgainst(spec, table, settings);
}
