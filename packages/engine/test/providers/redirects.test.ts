/**
 * A provider call never follows a redirect: following one would carry the request's credentials to the other
 * address (the Fetch standard drops only `Authorization` when a redirect leaves the origin, so `x-api-key`,
 * `x-goog-api-key` and a proxy's own headers would go along), and one is unexpected of an API.
 */
import { describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { serviceAccountTokens } from '../../src/clouds/vertex/service-account.ts';
import { anthropic, google, openai } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { serverPerTest } from './server.ts';

const KEY = 'sk-secret-do-not-follow-0123456789';
const serve = serverPerTest();

const PROVIDERS = [
  ['OpenAI (Authorization)', (baseURL: string) => openai.model('gpt-5', { baseURL, apiKey: KEY, headers: { 'x-proxy-token': KEY } })],
  ['Anthropic (x-api-key)', (baseURL: string) => anthropic.model('claude-sonnet-4-5', { baseURL, apiKey: KEY, headers: { 'x-proxy-token': KEY } })],
  ['Gemini (x-goog-api-key)', (baseURL: string) => google.model('gemini-2.5-flash', { baseURL, apiKey: KEY, headers: { 'x-proxy-token': KEY } })],
] as const;

describe('a redirect from the provider', () => {
  for (const [name, model] of PROVIDERS) {
    it.each([301, 302, 303, 307, 308])(`${name}: %i is refused with a typed error, once, and the other address is never called`, async (status) => {
      const elsewhere = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
      const provider = await serve((_req, res) => {
        res.writeHead(status, { location: `${elsewhere.url}/collect` });
        res.end();
      });
      const events = await drain(model(provider.url).stream({ messages: ask('Hi') }));
      const error = events.find((e) => e.type === 'error');
      expect(error).toMatchObject({ code: 'invalid_response', retryable: false });
      expect((error as { message: string }).message).toMatch(/answered with a redirect.*do not follow.*set the base URL/);
      // Not retried (a redirect will not go away), and nothing reached the other address.
      expect(provider.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
      expect(JSON.stringify(events)).not.toContain(KEY);
      expect(JSON.stringify(events)).not.toContain('/collect');
    });
  }

  it('a 3xx without a Location (nothing to follow) is refused the same way, with its status in the message', async () => {
    const provider = await serve((_req, res) => {
      res.writeHead(300, { 'content-type': 'text/plain' });
      res.end('pick one');
    });
    const events = await drain(openai.model('gpt-5', { baseURL: provider.url, apiKey: KEY }).stream({ messages: ask('Hi') }));
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'invalid_response', retryable: false, message: expect.stringContaining('HTTP 300') });
    expect(provider.requests).toHaveLength(1);
  });

  it.each([307, 308])('%i from the Google token endpoint: the signed assertion is not sent on, and the token fails as authentication', async (status) => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const elsewhere = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"access_token":"stolen","expires_in":3600}');
    });
    const endpoint = await serve((_req, res) => {
      res.writeHead(status, { location: `${elsewhere.url}/collect` });
      res.end();
    });
    const tokens = serviceAccountTokens({ client_email: 'parlance@acme.iam.gserviceaccount.com', private_key: privateKey, token_uri: `${endpoint.url}/token` });
    const error = await tokens.get().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ code: 'authentication', retryable: false, message: expect.stringMatching(/answered with a redirect, which is not followed/) });
    expect(endpoint.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });
});
