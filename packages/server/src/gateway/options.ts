/**
 * The gateway's configuration and what it reports per call.
 */
import type { DialectId } from '@parlance/dialects';
import type { EmbeddingModel, ResolveModelOptions } from '@parlance/engine';
import type { ErrorCode, FinishReason, ParlanceError, Usage } from '@parlance/protocol';
import type { AllowedOrigins } from '../edge/origin.ts';
import type { RunStore } from '../run-store.ts';
import type { GatewayPrincipal } from './keys.ts';
import type { ResponseCacheOptions } from './response-cache.ts';
import type { GatewayRoute } from './routing.ts';
import type { SpendStore } from './spend-store.ts';

/**
 * Which use of a shared gateway store failed (see `onStoreError`).
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, onStoreError: (error, { operation }: { operation: GatewayStoreOperation }) => log.warn(operation, error.code) });
 * ```
 */
export type GatewayStoreOperation = 'spend-check' | 'spend-add' | 'cache-get' | 'cache-put';

/**
 * What a finished gateway call reports (for usage and cost per key).
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, onFinish: (f: GatewayFinish) => bill(f.principal.id, f.usage.cost ?? 0) });
 * ```
 */
export interface GatewayFinish {
  principal: GatewayPrincipal;
  /** The model name the caller sent. */
  model: string;
  /** The provider and model that answered (after any fallback). */
  provider: string;
  providerModel: string;
  /** The caller's dialect and the provider's. */
  dialect: DialectId;
  upstreamDialect: string;
  stream: boolean;
  finishReason: FinishReason;
  /** Token counts, and `cost` in US dollars when the model's prices are known. */
  usage: Usage;
  error?: { code: ErrorCode; message: string };
  durationMs: number;
}

/**
 * The gateway's configuration: routes, key mapping, limits, reporting.
 *
 * @example
 * ```ts
 * const options: GatewayOptions = { routes: { fast: 'openai:gpt-5-mini' }, authorize: staticKeys({ 'sk-1': { id: 'me' } }) };
 * ```
 */
export interface GatewayOptions {
  /** Caller-facing model names -> provider models or fallback chains. Also the model allow-list. */
  routes: Record<string, GatewayRoute>;
  /**
   * Caller-facing embedding model names -> `'provider:model'` (`openai:`, `google:`, `mistral:`, `ollama:`)
   * or an `EmbeddingModel`, served on `/v1/embeddings`, Ollama's `/api/embed` and Gemini's
   * `:embedContent` / `:batchEmbedContents` (default: none; every such call answers 404).
   */
  embeddings?: Record<string, string | EmbeddingModel>;
  /**
   * A run store (memory or Redis) that keeps Responses answers, so a Responses caller's
   * `previous_response_id` and `item_reference` work, as at OpenAI with `store: true` (the
   * default; a caller's `store: false` keeps nothing). Kept as long as the store keeps finished
   * runs. Without one, both forms are refused with a 400 that names this setting.
   */
  store?: RunStore;
  /**
   * An exact-match cache of non-streamed answers (default: none). A request is answered from it when the
   * same key sent the same request (same format, route and decoded request) before; never across keys.
   * `true` takes the default bounds (see `ResponseCacheOptions`). A cached answer makes no upstream call
   * and is not reported to `onFinish`.
   */
  cache?: boolean | ResponseCacheOptions;
  /**
   * Where spend budgets' windows live (default: this process's memory, `memorySpendStore()`). On a
   * shared store (`redisSpendStore` from `@parlance/server/redis`) every instance keeps one budget per key.
   * A store that cannot be read refuses budgeted calls with 503 `store_unavailable` in the caller's format.
   */
  spendStore?: SpendStore;
  /**
   * Told when a shared store fails: a budget check (the call is refused, 503), a cost that could not be
   * counted (lost; the call had already run), a cache read or write (a miss; the call goes upstream).
   * Default: `console.error`.
   */
  onStoreError?: (error: ParlanceError, context: { operation: GatewayStoreOperation }) => void;
  /** Let callers name any `provider:model` beyond the table (default false). */
  allowProviderModels?: boolean;
  /**
   * Provider settings for resolving `provider:model` targets (keys from the environment, fetch, custom providers).
   * Retries are off by default: the caller's SDK retries by itself, as it would against its provider, and a
   * fallback chain moves on at once. Set `retry` here or on a route to retry upstream too.
   */
  providers?: ResolveModelOptions;
  /**
   * Maps the caller's gateway key (whichever header its SDK sent; undefined when none) to a
   * principal; undefined refuses the call with the caller's 401. See `staticKeys`.
   */
  authorize: (key: string | undefined, request: Request) => GatewayPrincipal | undefined | Promise<GatewayPrincipal | undefined>;
  /** An extra per-call check (default: the principal's `models` list, if any). */
  allowModel?: (principal: GatewayPrincipal, model: string) => boolean | Promise<boolean>;
  /**
   * A rate limit: `{ retryAfterSeconds }` refuses with the caller's 429 (default: the
   * principal's `rateLimit`, counted in memory per instance).
   */
  rateLimit?: (principal: GatewayPrincipal, request: Request) => undefined | { retryAfterSeconds?: number } | Promise<undefined | { retryAfterSeconds?: number }>;
  onFinish?: (finish: GatewayFinish) => void | Promise<void>;
  /** Request bodies larger than this are refused with 413 in the caller's format (default 4 MiB). */
  maxBodyBytes?: number;
  /** Arrays and objects in a request body may nest this deep (default 64); deeper is a 400 in the caller's format. */
  maxJsonDepth?: number;
  /**
   * Origins allowed to call from a browser, besides the gateway's own (default '*': callers are
   * SDKs that send their key in a header). A request with no `Origin` is always let through.
   */
  allowedOrigins?: AllowedOrigins;
  /** A path prefix when the app is not mounted by a parent. */
  basePath?: string;
}

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 64;
