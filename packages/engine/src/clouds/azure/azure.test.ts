// Azure OpenAI through the mock resource (which checks the key or token and the URL shape as Azure
// does), and the official `openai` SDK's AzureOpenAI against the same mock: our request must be the
// one Microsoft's documented client sends.

import type { Event, ModelRequest } from '@parlance/protocol';
import { type MockAzureOptions, mockAzureServer } from '@parlance/testing';
import { AzureOpenAI } from 'openai';
import { describe, expect, it } from 'vitest';
import { errorOf, PROMPT, run, textOf } from '../../../test/clouds.ts';
import { resolveModel } from '../../providers/resolve-model.ts';
import { type AzureOptions, createAzure } from './azure.ts';

const KEY = 'azure-key-0123456789abcdef';

function setup(mock: Omit<MockAzureOptions, 'script'>, options: AzureOptions, env: Record<string, string> = {}) {
  const resource = mockAzureServer({ ...mock, script: [{ text: 'Hello from Azure', usage: { inputTokens: 1_000, outputTokens: 100 } }] });
  const provider = createAzure(options, { env, retry: false, fetch: async (input, init) => resource(new Request(input, init)) });
  return { resource, provider };
}


describe('Azure OpenAI', () => {
  it('v1 API (default): endpoint and key from the openai SDK variables, Responses, deployment in the body', async () => {
    const { resource, provider } = setup({ dialect: 'openai_responses', apiKey: KEY, deployments: ['my-gpt'] }, {}, {
      AZURE_OPENAI_ENDPOINT: 'https://contoso.openai.azure.com/',
      AZURE_OPENAI_API_KEY: KEY,
    });
    const { all } = await run(provider.model('my-gpt').stream(PROMPT));
    expect(textOf(all)).toBe('Hello from Azure');
    const sent = resource.requests[0]!;
    expect(sent.url).toBe('https://contoso.openai.azure.com/openai/v1/responses');
    expect(sent.headers['api-key']).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect((sent.body as { model: string }).model).toBe('my-gpt');
  });

  it('deployment URLs: Chat Completions at /openai/deployments/{name}/chat/completions?api-version= (OPENAI_API_VERSION), resource from AZURE_RESOURCE_NAME, AZURE_API_KEY', async () => {
    const { resource, provider } = setup(
      { dialect: 'openai_completions', apiKey: KEY, deployments: ['gpt-4o-prod'] },
      { deploymentURLs: true, dialect: 'openai_completions' },
      { AZURE_RESOURCE_NAME: 'contoso', AZURE_API_KEY: KEY, OPENAI_API_VERSION: '2024-10-21' },
    );
    const model = provider.model('gpt-4o-prod');
    expect(model.dialect).toBe('openai_completions');
    const { all } = await run(model.stream(PROMPT));
    expect(textOf(all)).toBe('Hello from Azure');
    expect(resource.requests[0]!.url).toBe('https://contoso.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21');
  });

  it('Responses with deployment URLs go to /openai/responses?api-version=', async () => {
    const { resource, provider } = setup({ dialect: 'openai_responses', apiKey: KEY }, { endpoint: 'https://contoso.services.ai.azure.com', deploymentURLs: true, apiVersion: '2025-04-01-preview', apiKey: KEY });
    expect(textOf((await run(provider.model('o4-mini').stream(PROMPT))).all)).toBe('Hello from Azure');
    expect(resource.requests[0]!.url).toBe('https://contoso.services.ai.azure.com/openai/responses?api-version=2025-04-01-preview');
  });

  it('an Entra ID token function is called for every request (tokens rotate) and sent as a bearer token, never as api-key', async () => {
    let calls = 0;
    const resource = mockAzureServer({ dialect: 'openai_responses', entraToken: 'entra-token-2', script: [{ text: 'ok' }] });
    const provider = createAzure(
      { endpoint: 'https://contoso.openai.azure.com', entraToken: async () => `entra-token-${++calls}` },
      { env: {}, retry: false, fetch: async (input, init) => resource(new Request(input, init)) },
    );
    const first = await run(provider.model('d').stream(PROMPT));
    expect(errorOf(first.all)).toMatchObject({ code: 'authentication', status: 401 });
    const second = await run(provider.model('d').stream(PROMPT));
    expect(textOf(second.all)).toBe('ok');
    expect(resource.requests.map((r) => r.headers.authorization)).toEqual(['Bearer entra-token-1', 'Bearer entra-token-2']);
    expect(resource.requests.every((r) => r.headers['api-key'] === undefined)).toBe(true);
  });

  it('a wrong key fails as the resource answers it (401 -> authentication, the key redacted)', async () => {
    const { provider } = setup({ dialect: 'openai_responses', apiKey: KEY }, { endpoint: 'https://contoso.openai.azure.com', apiKey: 'wrong-key-0123456789' });
    const error = errorOf((await run(provider.model('d').stream(PROMPT))).all);
    expect(error).toMatchObject({ code: 'authentication', status: 401, retryable: false });
    expect(error!.message).not.toContain('wrong-key-0123456789');
  });

  it.each([
    ['no endpoint', {}, {}, 'invalid_request', /AZURE_OPENAI_ENDPOINT or AZURE_RESOURCE_NAME/],
    ['no key', { endpoint: 'https://contoso.openai.azure.com' }, {}, 'authentication', /AZURE_OPENAI_API_KEY or AZURE_API_KEY/],
    ['deployment URLs without api-version', { endpoint: 'https://contoso.openai.azure.com', deploymentURLs: true, apiKey: KEY }, {}, 'invalid_request', /api-version/],
    ['a token function that throws', { endpoint: 'https://contoso.openai.azure.com', entraToken: (): Promise<string> => Promise.reject(new Error('no managed identity')) }, {}, 'authentication', /no managed identity/],
    ['a token function that returns nothing', { endpoint: 'https://contoso.openai.azure.com', entraToken: (): string => '' }, {}, 'authentication', /no token/],
    ['a resource name that is not a DNS label', { resourceName: 'evil.com/x', apiKey: KEY }, {}, 'invalid_request', /resource name/],
    ['a resource name from the environment with a dot', {}, { AZURE_RESOURCE_NAME: 'attacker.example', AZURE_API_KEY: KEY }, 'invalid_request', /resource name/],
  ] as const)('%s: a typed error before any request', async (_name, options, env, code, message) => {
    let fetched = 0;
    const provider = createAzure(options as AzureOptions, { env: env as Record<string, string>, retry: false, fetch: async () => {
      fetched++;
      return new Response('{}');
    } });
    const error = errorOf((await run(provider.model('deployment').stream(PROMPT))).all);
    expect(error).toMatchObject({ code });
    expect(error!.message).toMatch(message);
    expect(fetched).toBe(0);
  });

  it.each(['../admin', 'a/b', 'x?api-version=1', 'x#y', '%2e%2e'])('deployment name %j cannot bend the deployment URL', async (name) => {
    const { resource, provider } = setup({ dialect: 'openai_completions', apiKey: KEY }, { endpoint: 'https://contoso.openai.azure.com', deploymentURLs: true, apiVersion: '2024-10-21', apiKey: KEY, dialect: 'openai_completions' });
    let error: unknown;
    try {
      error = errorOf((await run(provider.model(name).stream(PROMPT))).all);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect(resource.requests).toHaveLength(0);
  });

  it('resolves `azure:<deployment>` like any provider and prices known model names from the catalog', async () => {
    const { resource, provider } = setup({ dialect: 'openai_responses', apiKey: KEY }, { endpoint: 'https://contoso.openai.azure.com', apiKey: KEY });
    const model = resolveModel('azure:gpt-5-mini', { providers: { azure: provider } });
    expect(model.provider).toBe('azure');
    const { all } = await run(model.stream(PROMPT));
    const finish = all.find((e) => e.type === 'finish') as Extract<Event, { type: 'finish' }>;
    expect(finish.usage.cost).toBeGreaterThan(0);
    expect(resource.requests).toHaveLength(1);
  });
});

describe('the official openai SDK (AzureOpenAI) against the same mock resource', () => {
  it('sends what we send: path, api-version, api-key header, deployment', async () => {
    const resource = mockAzureServer({ dialect: 'openai_completions', apiKey: KEY, script: [{ text: 'from the SDK' }] });
    const client = new AzureOpenAI({
      endpoint: 'https://contoso.openai.azure.com',
      apiKey: KEY,
      apiVersion: '2024-10-21',
      deployment: 'gpt-4o-prod',
      fetch: async (input: string | URL | Request, init?: RequestInit) => resource(new Request(input, init)),
    });
    const stream = await client.chat.completions.create({ model: 'gpt-4o-prod', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('from the SDK');
    const theirs = resource.requests[0]!;

    const ours = createAzure(
      { endpoint: 'https://contoso.openai.azure.com', deploymentURLs: true, apiVersion: '2024-10-21', apiKey: KEY, dialect: 'openai_completions' },
      { env: {}, retry: false, fetch: async (input, init) => resource(new Request(input, init)) },
    );
    await run(ours.model('gpt-4o-prod').stream(PROMPT));
    const mine = resource.requests[1]!;
    expect(mine.url).toBe(theirs.url);
    expect(mine.headers['api-key']).toBe(theirs.headers['api-key']);
    expect((mine.body as { messages: unknown }).messages).toEqual((theirs.body as { messages: unknown }).messages);
  });
});
