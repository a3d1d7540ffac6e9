/**
 * A mock Azure OpenAI resource: checks the URL shape and the auth the way Azure does, then answers
 * from a script through `mockProviderServer` (Chat Completions or Responses). A wrong `api-key` or
 * token gets Azure's 401 body, an unknown deployment its 404, a deployment URL without `api-version`
 * its 400. https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference
 */
import { mockProviderServer, type MockProviderHandler, type MockScript, type RecordedRequest } from '../mock-server/handler.ts';

/**
 * What the mock accepts: a key (`api-key` header), an Entra token (`Authorization: Bearer`), or both.
 *
 * @example
 * const options: MockAzureOptions = { dialect: 'openai_completions', apiKey: 'azure-key', script: [{ text: 'Hi' }] };
 */
export interface MockAzureOptions {
  dialect: 'openai_completions' | 'openai_responses';
  script: MockScript;
  apiKey?: string;
  entraToken?: string;
  /** Deployment names that exist (default: any). */
  deployments?: readonly string[];
}

/**
 * A mock Azure OpenAI resource as a fetch handler, with its recorded requests.
 *
 * @example
 * const resource = mockAzureServer({ dialect: 'openai_responses', apiKey: 'azure-key', script: [{ text: 'Hi' }] });
 * const azure = createAzure({ endpoint: 'https://contoso.openai.azure.com', apiKey: 'azure-key' }, { fetch: async (input, init) => resource(new Request(input, init)) });
 */
export function mockAzureServer(options: MockAzureOptions): MockProviderHandler {
  const inner = mockProviderServer({ dialect: options.dialect, script: options.script });
  const requests: RecordedRequest[] = [];
  const fail = (status: number, code: string, message: string) => Response.json({ error: { code, message } }, { status });

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    requests.push({ method: request.method, url: request.url, path: url.pathname + url.search, headers, body: undefined });
    const key = request.headers.get('api-key');
    const bearer = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    const keyOk = key !== null && options.apiKey !== undefined && key === options.apiKey;
    const tokenOk = bearer !== undefined && options.entraToken !== undefined && bearer === options.entraToken;
    if (!keyOk && !tokenOk) {
      // Azure's own wording for a bad key: https://learn.microsoft.com/en-us/azure/ai-services/openai/reference#authentication
      return fail(401, '401', 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.');
    }
    const method = options.dialect === 'openai_completions' ? 'chat/completions' : 'responses';
    const deployment = new RegExp(`^/openai/deployments/([^/]+)/${method}$`).exec(url.pathname);
    const v1 = url.pathname === `/openai/v1/${method}`;
    const legacyResponses = method === 'responses' && url.pathname === '/openai/responses';
    if (!deployment && !v1 && !legacyResponses) return fail(404, '404', 'Resource not found');
    if (!v1 && !url.searchParams.get('api-version')) return fail(400, 'BadRequest', 'Missing required query parameter: api-version');
    const body = await request.text();
    const name = deployment ? decodeURIComponent(deployment[1]!) : (JSON.parse(body || '{}') as { model?: string }).model;
    if (options.deployments && (!name || !options.deployments.includes(name))) {
      return fail(404, 'DeploymentNotFound', 'The API deployment for this resource does not exist.');
    }
    const forwarded = new Request(new URL(`/${method}`, url.origin), { method: 'POST', headers: request.headers, body, signal: request.signal });
    const response = await inner(forwarded);
    const recorded = inner.requests.at(-1);
    if (recorded) requests[requests.length - 1] = { ...recorded, url: request.url, path: url.pathname + url.search };
    return response;
  };
  return Object.assign(handler, {
    requests,
    reset() {
      requests.length = 0;
      inner.reset();
    },
  });
}
