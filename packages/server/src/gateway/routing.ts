/**
 * The routing table: the model names a gateway's callers may send, each mapped to one
 * provider model or a fallback chain (the engine's `withFallback`), resolved once and kept.
 */
import { resolveModel, withFallback, type ModelSpec, type ResolveModelOptions } from '@parlance/engine';
import type { LanguageModel } from '@parlance/protocol';

/**
 * A provider model: `'provider:model'`, a `{ provider, model, ...settings }` spec, or a ready LanguageModel.
 *
 * @example
 * ```ts
 * const local: RouteTarget = { provider: 'ollama', model: 'qwen3', baseURL: 'http://127.0.0.1:11434' };
 * ```
 */
export type RouteTarget = string | ModelSpec | LanguageModel;

/**
 * One route: a target, or a fallback chain tried in order until one starts answering.
 *
 * @example
 * ```ts
 * const smart: GatewayRoute = { model: 'anthropic:claude-sonnet-4-5', fallbacks: ['openai:gpt-5'] };
 * ```
 */
export type GatewayRoute = RouteTarget | readonly RouteTarget[] | { model: RouteTarget; fallbacks?: readonly RouteTarget[] };

/**
 * The resolved routing table.
 *
 * @example
 * ```ts
 * createRouter({ fast: 'openai:gpt-5-mini' }).resolve('fast')?.modelId; // 'gpt-5-mini'
 * ```
 */
export interface Router {
  /** The model a caller's name routes to, or undefined when the name is not offered. */
  resolve(name: string): LanguageModel | undefined;
  /** The names offered (routes, in table order). */
  names(): string[];
}

function targetsOf(route: GatewayRoute): RouteTarget[] {
  if (Array.isArray(route)) return [...(route as readonly RouteTarget[])];
  if (typeof route === 'object' && route !== null && 'model' in route && !('stream' in route) && !('provider' in route)) {
    const chain = route as { model: RouteTarget; fallbacks?: readonly RouteTarget[] };
    return [chain.model, ...(chain.fallbacks ?? [])];
  }
  return [route as RouteTarget];
}

/**
 * @example
 * ```ts
 * const router = createRouter({ fast: 'openai:gpt-5-mini', smart: ['anthropic:claude-sonnet-4-5', 'openai:gpt-5'] });
 * ```
 * `routes` maps caller-facing names (aliases like `'fast'`, or `'provider:model'` names) to
 * targets. With `allowProviderModels`, a caller may also name any `provider:model` the
 * providers resolve, beyond the table (the table is then no allow-list).
 */
export function createRouter(
  routes: Record<string, GatewayRoute>,
  options: { providers?: ResolveModelOptions; allowProviderModels?: boolean } = {},
): Router {
  const cache = new Map<string, LanguageModel>();
  const build = (route: GatewayRoute): LanguageModel => {
    const models = targetsOf(route).map((target) => resolveModel(target, options.providers));
    return models.length === 1 ? models[0]! : withFallback(models);
  };
  return {
    resolve(name) {
      const cached = cache.get(name);
      if (cached) return cached;
      const route = Object.hasOwn(routes, name) ? routes[name] : options.allowProviderModels && /^[a-z0-9_-]+:.+/i.test(name) ? name : undefined;
      if (route === undefined) return undefined;
      let model: LanguageModel;
      try {
        model = build(route);
      } catch {
        return undefined;
      }
      // Bounded: direct provider:model names are caller-chosen.
      if (cache.size < 1000) cache.set(name, model);
      return model;
    },
    names: () => Object.keys(routes),
  };
}

/** The dialects a model may speak (every model of a fallback chain). */
export function dialectsOf(model: LanguageModel): string[] {
  const chain = (model as { models?: readonly LanguageModel[] }).models;
  return chain ? chain.flatMap(dialectsOf) : [model.dialect];
}
