/**
 * What a provider is: a base URL, an authentication style, the dialect its models
 * speak, and its quirks as small hooks. Definitions are plain data plus functions;
 * runtime settings (the key, a proxy URL, a fetch) are given separately and kept in
 * closures, so nothing serializable ever holds a key.
 */
import type { ClientDialect, DecoderOptions, DialectId } from '@parlance/dialects';
import type { Event, LanguageModel, ModelRequest } from '@parlance/protocol';
import type { CatalogTable, ModelInfo } from '../catalog/catalog.ts';
import type { ModelFileUploads } from '../files/provider-files.ts';
import type { ErrorBodyParser } from '../transport/http-error.ts';
import type { ProviderTransportOptions, Transport } from '../transport/transport.ts';
import type { ProviderFileApi } from './file-api-types.ts';

/**
 * How a provider takes its key: which environment variables, which header, what prefix, whether it is optional.
 *
 * @example
 * const auth: ApiKeyAuth = { env: ['ACME_API_KEY', 'ACME_KEY'], header: 'x-api-key' };
 */
export interface ApiKeyAuth {
  /** Environment variables read at call time; the first one set wins. */
  env?: string | readonly string[];
  /** The header carrying the key (default `authorization`). */
  header?: string;
  /** Put before the key (default `Bearer ` for `authorization`, nothing otherwise). */
  prefix?: string;
  /** Send the request without a key when none is found (local servers). */
  optional?: boolean;
}

/**
 * A provider's auth: an API key definition, or `'none'`.
 *
 * @example
 * const local: AuthDefinition = 'none';
 */
export type AuthDefinition = ApiKeyAuth | 'none';

/**
 * What hooks see about the call in progress.
 *
 * @example
 * modifyBody: (body, { modelId, info }: ModelContext) => (info.reasoning ? { ...body, reasoning: { effort: 'low' } } : body)
 */
export interface ModelContext {
  provider: string;
  modelId: string;
  dialect: DialectId;
  info: ModelInfo;
  /** The request after the engine's adjustments (effort clamped, max tokens filled). */
  request: ModelRequest;
}

/**
 * What a provider adds to (or corrects in) the catalog for a model.
 *
 * @example
 * defineProvider({ ...definition, models: { 'acme-large': { contextWindow: 128_000, maxOutputTokens: 8_192, input: ['text', 'image'] } } });
 */
export type ModelCatalogEntry = Partial<Omit<ModelInfo, 'provider' | 'id' | 'known'>>;

/**
 * What a provider is: base URL (and its environment variable), auth, dialect, headers and quirks.
 *
 * @example
 * const definition: ProviderDefinition = { id: 'acme', baseURL: 'https://llm.acme.dev/v1', baseURLEnv: 'ACME_BASE_URL', auth: { env: 'ACME_API_KEY' }, dialect: 'openai_completions' };
 */
export interface ProviderDefinition {
  id: string;
  /** Named in error messages (default: the id). */
  name?: string;
  baseURL: string;
  /**
   * The environment variable that points this provider elsewhere, named as the provider's official
   * SDK names it (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, `GOOGLE_GEMINI_BASE_URL`, `OLLAMA_HOST`).
   * Read at call time from `settings.env` (default `process.env`); `settings.baseURL` wins over it.
   */
  baseURLEnv?: string;
  /** Turns the variable's value into a base URL, when it is not one already (Ollama's `host:port`). */
  parseBaseURLEnv?(value: string): string;
  /**
   * A base URL built from the environment at call time, after `settings.baseURL` and `baseURLEnv`
   * (a cloud's region or resource name: `AWS_REGION`, `AZURE_RESOURCE_NAME`); undefined falls back to `baseURL`.
   */
  baseURLFrom?(env: Record<string, string | undefined>): string | undefined;
  /**
   * The wire a model speaks when a dialect's own path, body or framing is not it (Azure's deployment
   * paths, Bedrock's event stream, Vertex's publisher paths): given the dialect, the one to use instead.
   */
  wire?(modelId: string, dialect: ClientDialect, settings: ProviderSettings): WireDialect;
  /**
   * Authorizes one finished request (a SigV4 signature over URL, headers and body; a bearer token from a
   * function): the headers to add. Every value returned is a secret (redacted from errors and spans).
   */
  authorize?(request: AuthorizeRequest, settings: ProviderSettings): Promise<Record<string, string>>;
  auth: AuthDefinition;
  /** The dialect models speak unless `dialectFor` or the caller says otherwise. */
  dialect: DialectId;
  /** A gateway may speak several dialects: the one a given model needs. */
  dialectFor?(modelId: string): DialectId | undefined;
  /** Headers sent on every request (API versions, attribution). */
  headers?: Record<string, string>;
  /** The decoder's quirk options for this provider's stream (reasoning field names, tool-call ids). */
  decoderOptions?: DecoderOptions | ((modelId: string) => DecoderOptions | undefined);
  /** Fill `maxOutputTokens` from the catalog when the request has none (APIs that require it). */
  requiresMaxOutputTokens?: boolean;
  /**
   * Chat Completions: the reasoning fields this vendor takes back on assistant messages (default
   * both, `reasoning_content` and `reasoning_details`); reasoning kept for another field is left
   * out with a warning, so a handoff from DeepSeek never sends Groq a field it rejects.
   */
  acceptsReasoning?: readonly ('reasoning_content' | 'reasoning_details')[];
  /** Rewrites the encoded body: parameters the provider names its own way, fields it rejects. */
  modifyBody?(body: Record<string, unknown>, context: ModelContext): Record<string, unknown>;
  /** Rewrites the decoded event stream (runs before cost is added). */
  modifyEvents?(events: AsyncIterable<Event>, context: ModelContext): AsyncIterable<Event>;
  /** Reads this provider's error bodies when the shared reader is not enough. */
  parseError?: ErrorBodyParser;
  /** The catalog table holding this provider's models (default: the id). */
  catalog?: string;
  /** A table of this provider's own, used instead of the built-in catalog (a cloud's `models.json`, bundled only with it). */
  catalogTable?: CatalogTable;
  /** Models to add to, or correct in, the catalog. */
  models?: Record<string, ModelCatalogEntry>;
  /** The provider's Files API, used for stored files when the server opts in (`createProviderFiles`). */
  files?: ProviderFileApi;
}

/**
 * A dialect as a provider's `wire` returns it: a registered dialect's client side, or a cloud's own
 * wire format (Bedrock Converse) under its own id.
 *
 * @example
 * const wire: WireDialect = { ...getClientDialect('openai_completions'), path: () => '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21' };
 */
export type WireDialect = Omit<ClientDialect, 'id'> & { id: string };

/**
 * The request `authorize` sees: method, URL, headers (lower-case names) and the body text, as they will be sent.
 *
 * @example
 * const request: AuthorizeRequest = { method: 'POST', url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse-stream', headers: { 'content-type': 'application/json' }, body: '{}' };
 */
export interface AuthorizeRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A key, or a function that returns one (called for every request, so keys can rotate).
 *
 * @example
 * openai.model('gpt-5-mini', { apiKey: async () => (await secrets.get('openai')) satisfies string | undefined });
 */
export type ApiKeySource = string | (() => string | undefined | Promise<string | undefined>);

/**
 * Runtime settings: where to send, with what key, through which fetch.
 *
 * @example
 * const settings: ProviderSettings = { apiKey: () => vault.get('openai'), baseURL: 'https://proxy.internal/v1', retry: { maxRetries: 5 } };
 */
export interface ProviderSettings extends ProviderTransportOptions {
  /** The key, or a function returning it (called for every request). Default: the environment. */
  apiKey?: ApiKeySource;
  /** Where environment variables are read (default `process.env` when there is one; Workers pass their `env`). */
  env?: Record<string, string | undefined>;
  baseURL?: string;
  headers?: Record<string, string>;
  /** Use this dialect for every model (OpenAI: 'openai_completions' for Chat Completions). */
  dialect?: DialectId;
  /** A ready transport, instead of one built from the transport options here. */
  transport?: Transport;
}

/**
 * A model bound to its provider: a LanguageModel with its catalog data.
 *
 * @example
 * const model = openai.model('gpt-5-mini');
 * console.log(model.info.contextWindow);
 */
export interface ProviderModel extends LanguageModel {
  readonly info: ModelInfo;
  /** The base URL calls go to (settings, environment, or the provider's default): spans record its host and port. */
  endpoint(): string;
  /** The provider's Files API bound to this model's key and base URL, when the provider has one. */
  readonly files?: ModelFileUploads;
  toJSON(): { provider: string; modelId: string; dialect: string };
}

/**
 * A provider: `model(id)` gives a LanguageModel, `withSettings` a configured copy.
 *
 * @example
 * const model = openai.withSettings({ apiKey: key }).model('gpt-5-mini');
 */
export interface Provider {
  readonly id: string;
  readonly name: string;
  readonly baseURL: string;
  readonly dialect: DialectId;
  readonly definition: ProviderDefinition;
  /** A model of this provider; settings given here apply over the provider's. */
  model(modelId: string, settings?: ProviderSettings): ProviderModel;
  /** The same provider with more settings (a key, a proxy, a custom fetch). */
  withSettings(settings: ProviderSettings): Provider;
  toJSON(): { id: string; name: string; baseURL: string; dialect: DialectId };
}
