/**
 * The routing table: the model names a gateway's callers may send, each mapped to one
 * provider model or a fallback chain (the engine's `withFallback`), resolved once and kept.
 */
import { resolveModel, withFallback, type ModelSpec, type ResolveModelOptions } from '@parlance/engine';
import { type LanguageModel, ParlanceError } from '@parlance/protocol';

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
export type GatewayRoute =
  | RouteTarget
  | readonly RouteTarget[]
  | { model: RouteTarget; fallbacks?: readonly RouteTarget[] }
  | { balance: readonly WeightedTarget[]; fallbacks?: readonly RouteTarget[] };

/**
 * One target of a weighted route: its share of the calls is `weight` over the sum of the weights
 * (default 1; 0 takes none).
 *
 * @example
 * ```ts
 * const route: GatewayRoute = { balance: [{ model: 'openai:gpt-5-mini', weight: 3 }, { model: { provider: 'openai', model: 'gpt-5-mini', apiKey: key2 } }] };
 * ```
 */
export interface WeightedTarget {
  model: RouteTarget;
  weight?: number;
}

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

/**
 * A model that sends each call to one of `models`, picked at random by weight (Portkey's and
 * LiteLLM's `loadbalance`: keys or providers sharing the load). A call that fails goes on through
 * the route's `fallbacks`, not to another balanced target, so the weights hold under errors.
 */
function balanced(models: readonly LanguageModel[], weights: readonly number[], random: () => number): LanguageModel & { models: readonly LanguageModel[] } {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const pick = (): LanguageModel => {
    let point = random() * total;
    for (let i = 0; i < models.length; i++) {
      point -= weights[i]!;
      if (point < 0 && weights[i]! > 0) return models[i]!;
    }
    // random() may return a value that rounds to the total: the last target with any weight.
    let last = models.length - 1;
    while (last > 0 && weights[last] === 0) last--;
    return models[last]!;
  };
  const first = models[0]!;
  return { provider: first.provider, modelId: first.modelId, dialect: first.dialect, models, stream: (request, options) => pick().stream(request, options) };
}

/** What is wrong with a balanced route's weights (undefined when nothing): `checkGatewayConfig` reports it at start. */
export function balanceProblem(targets: readonly WeightedTarget[]): string | undefined {
  const weights = targets.map((target) => target.weight ?? 1);
  if (targets.length === 0) return 'has no targets';
  if (weights.some((weight) => typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)) return 'has a weight that is not a finite number of 0 or more';
  if (!weights.some((weight) => weight > 0)) return 'has no target with a weight above 0';
  return undefined;
}

function weightsOf(targets: readonly WeightedTarget[]): number[] {
  const problem = balanceProblem(targets);
  if (problem) throw new ParlanceError('invalid_request', `A balanced route ${problem}`);
  return targets.map((target) => target.weight ?? 1);
}

function targetsOf(route: GatewayRoute): RouteTarget[] {
  if (Array.isArray(route)) return [...(route as readonly RouteTarget[])];
  if (typeof route === 'object' && route !== null && 'balance' in route) return [...(route.fallbacks ?? [])];
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
  options: { providers?: ResolveModelOptions; allowProviderModels?: boolean; random?: () => number } = {},
): Router {
  const cache = new Map<string, LanguageModel>();
  const random = options.random ?? Math.random;
  const build = (route: GatewayRoute): LanguageModel => {
    const models = targetsOf(route).map((target) => resolveModel(target, options.providers));
    if (typeof route === 'object' && route !== null && 'balance' in route) {
      const weights = weightsOf(route.balance);
      models.unshift(balanced(route.balance.map((target) => resolveModel(target.model, options.providers)), weights, random));
    }
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
