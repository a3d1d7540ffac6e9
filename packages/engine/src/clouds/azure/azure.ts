/**
 * Azure OpenAI / Azure AI Foundry: OpenAI's Chat Completions and Responses APIs on an Azure resource.
 *
 * Two URL shapes (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/api-version-lifecycle):
 * - the v1 API (default): `{endpoint}/openai/v1/chat/completions` and `/openai/v1/responses`, the
 *   deployment name in the body's `model`, no `api-version` needed;
 * - deployment URLs (`deploymentURLs: true`, needs an `apiVersion`):
 *   `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=2024-10-21`, and for
 *   Responses `{endpoint}/openai/responses?api-version=...` (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference).
 *
 * Auth: the `api-key` header, or a Microsoft Entra ID bearer token from a function (scope
 * `https://cognitiveservices.azure.com/.default`; @azure/identity's `getBearerTokenProvider` returns one).
 * Both are resolved per request, so keys and tokens can rotate. Variables as the `openai` SDK's
 * `AzureOpenAI` reads them: `AZURE_OPENAI_API_KEY`, `AZURE_OPENAI_ENDPOINT`, `OPENAI_API_VERSION`;
 * and as the AI SDK reads them: `AZURE_API_KEY`, `AZURE_RESOURCE_NAME`.
 */
import { modelPathSegment } from '@parlance/dialects';
import { ParlanceError } from '@parlance/protocol';
import { defaultEnv, resolveApiKey } from '../../providers/auth.ts';
import { defineProvider } from '../../providers/define-provider.ts';
import type { ApiKeySource, Provider, ProviderDefinition, ProviderSettings } from '../../providers/types.ts';

/**
 * Azure's API-key variables, the `openai` SDK's first.
 *
 * @example
 * const key = AZURE_KEY_ENV.map((name) => env[name]).find(Boolean);
 */
export const AZURE_KEY_ENV = ['AZURE_OPENAI_API_KEY', 'AZURE_API_KEY'] as const;

/**
 * How to reach an Azure OpenAI or Foundry resource, and how to authenticate.
 *
 * @example
 * const options: AzureOptions = { resourceName: 'contoso', dialect: 'openai_completions', entraToken: () => credential.getToken() };
 */
export interface AzureOptions {
  /** `https://{resourceName}.openai.azure.com` (default: `AZURE_RESOURCE_NAME`). */
  resourceName?: string;
  /**
   * The resource endpoint, e.g. `https://contoso.openai.azure.com` or a Foundry
   * `https://contoso.services.ai.azure.com` (default: `AZURE_OPENAI_ENDPOINT`). Wins over `resourceName`.
   */
  endpoint?: string;
  /** `api-version` query value (default: `OPENAI_API_VERSION`; the v1 API needs none). */
  apiVersion?: string;
  /** Use `/openai/deployments/{deployment}/...?api-version=` URLs instead of the v1 API. */
  deploymentURLs?: boolean;
  /** The `api-key` value, or a function returning it (default: `AZURE_OPENAI_API_KEY`, `AZURE_API_KEY`). */
  apiKey?: ApiKeySource;
  /** A Microsoft Entra ID access token for every request, used instead of a key (`Authorization: Bearer`). */
  entraToken?: () => string | Promise<string>;
  /** Chat Completions or Responses (default `openai_responses`). */
  dialect?: 'openai_completions' | 'openai_responses';
}

function refuse(message: string): ParlanceError {
  return new ParlanceError('invalid_request', message, { status: 400, retryable: false });
}

function pick(value: string | undefined, env: Record<string, string | undefined>, name: string): string | undefined {
  return value?.trim() || env[name]?.trim() || undefined;
}

/**
 * The resource's base URL from the options or the environment, without the `/openai` part.
 *
 * @example
 * azureEndpoint({ resourceName: 'contoso' }, {}); // 'https://contoso.openai.azure.com'
 */
export function azureEndpoint(options: AzureOptions, env: Record<string, string | undefined>): string | undefined {
  const endpoint = pick(options.endpoint, env, 'AZURE_OPENAI_ENDPOINT');
  if (endpoint) return endpoint.replace(/\/+$/, '').replace(/\/openai(\/v1)?$/, '');
  const name = pick(options.resourceName, env, 'AZURE_RESOURCE_NAME');
  if (!name) return undefined;
  // A resource name is a DNS label: anything else would point the request at another host.
  if (!/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/i.test(name)) throw refuse(`The Azure resource name ${JSON.stringify(name.slice(0, 80))} is not valid`);
  return `https://${name}.openai.azure.com`;
}

/**
 * The request path for one deployment, per the URL shape chosen.
 *
 * @example
 * azurePath({ deploymentURLs: true, apiVersion: '2024-10-21' }, {}, 'openai_completions', 'gpt-4o'); // '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21'
 */
export function azurePath(options: AzureOptions, env: Record<string, string | undefined>, dialect: string, deployment: string): string {
  const apiVersion = pick(options.apiVersion, env, 'OPENAI_API_VERSION');
  const query = apiVersion ? `?api-version=${encodeURIComponent(apiVersion)}` : '';
  const method = dialect === 'openai_completions' ? 'chat/completions' : 'responses';
  if (!options.deploymentURLs) return `/openai/v1/${method}${query}`;
  if (!apiVersion) throw refuse('Azure deployment URLs need an api-version: pass apiVersion or set OPENAI_API_VERSION');
  if (method === 'responses') return `/openai/responses${query}`;
  return `/openai/deployments/${modelPathSegment(deployment)}/${method}${query}`;
}

/**
 * An Azure OpenAI / Foundry provider: models are deployment names (`azure:my-gpt-5-deployment`).
 *
 * @example
 * import { createAzure } from '@parlance/engine/azure';
 * const azure = createAzure({ resourceName: 'contoso' }); // AZURE_OPENAI_API_KEY
 * await createEngine().chat({ model: azure.model('gpt-5-mini'), prompt: 'Hi' });
 * const entra = createAzure({ endpoint: 'https://contoso.openai.azure.com', entraToken: getBearerTokenProvider(credential, 'https://cognitiveservices.azure.com/.default') });
 */
export function createAzure(options: AzureOptions = {}, settings: ProviderSettings = {}): Provider {
  const keyAuth = { env: [...AZURE_KEY_ENV], header: 'api-key' };
  const definition: ProviderDefinition = {
    id: 'azure',
    name: 'Azure OpenAI',
    // Only reached when neither settings nor environment name a resource: `authorize` refuses first.
    baseURL: 'https://resource-name-missing.openai.azure.com',
    baseURLFrom: (env) => azureEndpoint(options, env),
    auth: 'none',
    dialect: options.dialect ?? 'openai_responses',
    // Prices are the OpenAI models' (a deployment named after its model finds them; Azure's list prices match OpenAI's).
    catalog: 'openai',
    wire: (modelId, dialect, current) => ({
      ...dialect,
      path: () => azurePath(options, current.env ?? defaultEnv(), dialect.id, modelId),
    }),
    authorize: async (_request, current): Promise<Record<string, string>> => {
      if (!current.baseURL && !azureEndpoint(options, current.env ?? defaultEnv())) {
        throw refuse('No Azure OpenAI endpoint: pass endpoint or resourceName, or set AZURE_OPENAI_ENDPOINT or AZURE_RESOURCE_NAME');
      }
      if (options.entraToken && options.apiKey === undefined && current.apiKey === undefined) {
        let token: string;
        try {
          token = (await options.entraToken()).trim();
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new ParlanceError('authentication', `Could not get the Microsoft Entra ID token for Azure OpenAI: ${reason}`, { retryable: false });
        }
        if (!token) throw new ParlanceError('authentication', 'The Microsoft Entra ID token function returned no token', { retryable: false });
        return { authorization: `Bearer ${token}` };
      }
      const key = await resolveApiKey(keyAuth, { apiKey: current.apiKey ?? options.apiKey, env: current.env }, 'Azure OpenAI');
      return { 'api-key': key! };
    },
  };
  return defineProvider(definition, settings);
}

/**
 * Azure OpenAI from the environment (`AZURE_OPENAI_ENDPOINT` or `AZURE_RESOURCE_NAME`, `AZURE_OPENAI_API_KEY`), Responses API.
 *
 * @example
 * import { azure } from '@parlance/engine/azure';
 * resolveModel('azure:my-deployment', { providers: { azure } });
 */
export const azure: Provider = createAzure();
