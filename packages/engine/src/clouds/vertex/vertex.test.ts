// Vertex AI through the mock Vertex and the mock Google token endpoint: the service account's JWT is
// verified there with the public key (Web Crypto, not the library that signed it), tokens are cached
// until near expiry, and Vertex takes only issued tokens, on the URL shapes it serves.
import { generateKeyPairSync } from 'node:crypto';
import type { Event, ModelRequest } from '@parlance/protocol';
import { type MockVertexOptions, mockGoogleTokenEndpoint, mockVertexServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { errorOf, PROMPT, run, textOf } from '../../../test/clouds.ts';
import { resolveModel } from '../../providers/resolve-model.ts';
import type { ProviderSettings } from '../../providers/types.ts';
import { type ServiceAccountKey, serviceAccountTokens } from './service-account.ts';
import { createVertex, type VertexOptions } from './vertex.ts';

const TOKEN_URI = 'https://oauth2.googleapis.com/token';
const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const other = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const KEY: ServiceAccountKey = { client_email: 'parlance@acme-prod.iam.gserviceaccount.com', private_key: pair.privateKey, private_key_id: 'k1', token_uri: TOKEN_URI };

function setup(mock: Partial<MockVertexOptions> = {}, options: VertexOptions = {}, settings: ProviderSettings = {}, clock?: { now: number }) {
  const google = mockGoogleTokenEndpoint({ clientEmail: KEY.client_email, publicKey: pair.publicKey, tokenURI: TOKEN_URI, ...(clock ? { now: () => clock.now } : {}) });
  const api = mockVertexServer({ project: 'acme-prod', location: 'us-central1', tokens: google.issued, script: [{ text: 'Hello from Vertex', usage: { inputTokens: 1_000, outputTokens: 100 } }], ...mock });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    return request.url === TOKEN_URI ? google(request) : api(request);
  };
  const provider = createVertex(options, { env: {}, retry: false, fetch, ...settings });
  return { google, api, provider };
}


describe('Vertex AI', () => {
  it('Gemini in a region with a service account: the JWT is verified by the token endpoint, the token is cached across calls', async () => {
    const { google, api, provider } = setup({}, { project: 'acme-prod', location: 'us-central1', serviceAccount: KEY });
    const model = provider.model('gemini-2.5-flash');
    const first = await run(model.stream(PROMPT));
    expect(textOf(first.all)).toBe('Hello from Vertex');
    await run(model.stream(PROMPT));
    expect(google.exchanges()).toBe(1);
    expect(api.requests.map((r) => r.url)).toEqual([
      'https://us-central1-aiplatform.googleapis.com/v1/projects/acme-prod/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      'https://us-central1-aiplatform.googleapis.com/v1/projects/acme-prod/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ]);
    expect(api.requests[0]!.headers.authorization).toMatch(/^Bearer ya29\.mock-1-/);
    const finish = first.all.at(-1) as Extract<Event, { type: 'finish' }>;
    expect(finish.usage.cost).toBeGreaterThan(0);
  });

  it('the cached token is exchanged again five minutes before it expires, and concurrent calls share one exchange', async () => {
    const clock = { now: Date.now() };
    const google = mockGoogleTokenEndpoint({ clientEmail: KEY.client_email, publicKey: pair.publicKey, tokenURI: TOKEN_URI, now: () => clock.now });
    const tokens = serviceAccountTokens(KEY, { fetch: async (input, init) => google(new Request(input, init)), now: () => clock.now });
    const [a, b] = await Promise.all([tokens.get(), tokens.get()]);
    expect(a).toBe(b);
    expect(google.exchanges()).toBe(1);
    clock.now += 54 * 60_000;
    expect(await tokens.get()).toBe(a);
    clock.now += 2 * 60_000;
    expect(await tokens.get()).not.toBe(a);
    expect(google.exchanges()).toBe(2);
  });

  it('a key the endpoint does not trust is refused there (the signature check), and the call fails as authentication', async () => {
    const { google, api, provider } = setup({}, { project: 'acme-prod', location: 'us-central1', serviceAccount: { ...KEY, private_key: other.privateKey } });
    const error = errorOf((await run(provider.model('gemini-2.5-flash').stream(PROMPT))).all);
    expect(error).toMatchObject({ code: 'authentication' });
    expect(error!.message).toMatch(/Invalid JWT Signature/);
    expect(error!.message).not.toContain('PRIVATE KEY');
    expect(google.exchanges()).toBe(0);
    expect(api.requests).toHaveLength(0);
  });

  it('a private key that is not PKCS#8 PEM is an authentication error that never shows the key', async () => {
    const { provider } = setup({}, { project: 'acme-prod', location: 'us-central1', serviceAccount: { ...KEY, private_key: 'not-a-key-SECRETMATERIAL' } });
    const error = errorOf((await run(provider.model('gemini-2.5-flash').stream(PROMPT))).all);
    expect(error).toMatchObject({ code: 'authentication' });
    expect(error!.message).not.toContain('SECRETMATERIAL');
  });

  it('the global location uses the global host; the service account comes from GOOGLE_CLIENT_EMAIL / GOOGLE_PRIVATE_KEY (\\n escaped)', async () => {
    const { api, provider } = setup({ location: 'global' }, {}, {
      env: { GOOGLE_CLOUD_PROJECT: 'acme-prod', GOOGLE_CLOUD_LOCATION: 'global', GOOGLE_CLIENT_EMAIL: KEY.client_email, GOOGLE_PRIVATE_KEY: pair.privateKey.replace(/\n/g, '\\n') },
    });
    expect(textOf((await run(provider.model('gemini-2.5-pro').stream(PROMPT))).all)).toBe('Hello from Vertex');
    expect(api.requests[0]!.url).toBe('https://aiplatform.googleapis.com/v1/projects/acme-prod/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
  });

  it('Claude on Vertex: streamRawPredict with the Messages body, anthropic_version and no model', async () => {
    const { api, provider } = setup({ location: 'us-east5' }, { project: 'acme-prod', location: 'us-east5', serviceAccount: KEY });
    const model = provider.model('claude-sonnet-4-5@20250929');
    expect(model.dialect).toBe('anthropic_messages');
    const { all } = await run(model.stream({ ...PROMPT, maxOutputTokens: 400 }));
    expect(textOf(all)).toBe('Hello from Vertex');
    const sent = api.requests[0]!;
    expect(sent.url).toBe('https://us-east5-aiplatform.googleapis.com/v1/projects/acme-prod/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict');
    const body = sent.body as Record<string, unknown>;
    expect(body.anthropic_version).toBe('vertex-2023-10-16');
    expect(body.stream).toBe(true);
    expect(body.max_tokens).toBe(400);
    expect(body).not.toHaveProperty('model');
    expect((all.at(-1) as Extract<Event, { type: 'finish' }>).usage.cost).toBeGreaterThan(0);
  });

  it('an access-token function is called for every request', async () => {
    const google = mockGoogleTokenEndpoint({ clientEmail: KEY.client_email, publicKey: pair.publicKey, tokenURI: TOKEN_URI });
    const tokens = serviceAccountTokens(KEY, { fetch: async (input, init) => google(new Request(input, init)) });
    let calls = 0;
    const { api, provider } = setup({ tokens: google.issued }, { project: 'acme-prod', location: 'us-central1', accessToken: (): Promise<string> => {
      calls++;
      return tokens.get();
    } });
    await run(provider.model('gemini-2.5-flash').stream(PROMPT));
    await run(provider.model('gemini-2.5-flash').stream(PROMPT));
    expect(calls).toBe(2);
    expect(api.requests.every((r) => r.headers.authorization?.startsWith('Bearer ya29.'))).toBe(true);
  });

  it('a token Vertex did not issue is refused: 401 UNAUTHENTICATED -> authentication', async () => {
    const { provider } = setup({}, { project: 'acme-prod', location: 'us-central1', accessToken: () => 'ya29.forged' });
    expect(errorOf((await run(provider.model('gemini-2.5-flash').stream(PROMPT))).all)).toMatchObject({ code: 'authentication', status: 401 });
  });

  it('express mode: no project, an API key (GOOGLE_VERTEX_API_KEY) in x-goog-api-key on the project-less path', async () => {
    const { api, provider } = setup({ apiKey: 'vertex-express-key-0123456789' }, {}, { env: { GOOGLE_VERTEX_API_KEY: 'vertex-express-key-0123456789' } });
    expect(textOf((await run(provider.model('gemini-2.5-flash').stream(PROMPT))).all)).toBe('Hello from Vertex');
    const sent = api.requests[0]!;
    expect(sent.url).toBe('https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(sent.headers['x-goog-api-key']).toBe('vertex-express-key-0123456789');
    expect(sent.headers.authorization).toBeUndefined();
  });

  it.each([
    ['nothing configured', {}, {}, 'authentication', /GOOGLE_VERTEX_API_KEY or GOOGLE_API_KEY/],
    ['a project but no credentials', { project: 'acme-prod' }, {}, 'authentication', /GOOGLE_CLIENT_EMAIL/],
    ['a project id that is not one', { project: 'acme/../x', accessToken: (): string => 't' }, {}, 'invalid_request', /project/],
    ['a location that would change the host', { project: 'acme-prod', location: 'evil.com/x', accessToken: (): string => 't' }, {}, 'invalid_request', /location/],
    ['a location from the environment with a dot', { project: 'acme-prod', accessToken: (): string => 't' }, { GOOGLE_CLOUD_LOCATION: 'a.b' }, 'invalid_request', /location/],
    ['an access-token function that throws', { project: 'acme-prod', accessToken: (): Promise<string> => Promise.reject(new Error('metadata server down')) }, {}, 'authentication', /metadata server down/],
  ] as const)('%s: a typed error before any request', async (_name, options, env, code, message) => {
    let fetched = 0;
    const provider = createVertex(options as VertexOptions, {
      env: env as Record<string, string>,
      retry: false,
      fetch: async () => {
        fetched++;
        return new Response('{}');
      },
    });
    const error = errorOf((await run(provider.model('gemini-2.5-flash').stream(PROMPT))).all);
    expect(error).toMatchObject({ code });
    expect(error!.message).toMatch(message);
    expect(fetched).toBe(0);
  });

  it.each(['claude-sonnet-4-5@20250929', 'gemini-2.5-flash'])('Claude needs a project: %s in express mode', async (id) => {
    const { provider } = setup({ apiKey: 'k-0123456789' }, { apiKey: 'k-0123456789' });
    const { all } = await run(provider.model(id).stream(PROMPT));
    if (id.startsWith('claude')) expect(errorOf(all)).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/express mode serves Gemini only/) });
    else expect(errorOf(all)).toBeUndefined();
  });

  it.each(['gemini:x', 'a/b', '../x', 'x?alt=json', 'gemini 2'])('model id %j cannot bend the Vertex URL', async (id) => {
    const { api, provider } = setup({}, { project: 'acme-prod', location: 'us-central1', serviceAccount: KEY });
    let error: unknown;
    try {
      error = errorOf((await run(provider.model(id).stream(PROMPT))).all);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect(api.requests).toHaveLength(0);
  });

  it('resolves `vertex:<model>` like any provider', async () => {
    const { provider } = setup({}, { project: 'acme-prod', location: 'us-central1', serviceAccount: KEY });
    const model = resolveModel('vertex:gemini-2.5-flash', { providers: { vertex: provider } });
    expect(textOf((await run(model.stream(PROMPT))).all)).toBe('Hello from Vertex');
  });
});
