/**
 * An API key reaches the provider's auth header and nowhere else: not an error
 * message (even when the provider echoes it), not an event, not a serialized or
 * inspected model or provider.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { anthropic, openai, resolveModel } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { sendJson, serverPerTest } from './server.ts';

const KEY = 'sk-secret-do-not-leak-0123456789';
const messages = ask('Hi');

const serve = serverPerTest();

describe('API keys', () => {
  it('are redacted from an error message that echoes them, and from every event', async () => {
    const server = await serve((_req, res) =>
      sendJson(res, 401, { error: { message: `Incorrect API key provided: ${KEY}`, code: 'invalid_api_key' } }),
    );
    const events = await drain(openai.model('gpt-5', { baseURL: server.url, apiKey: KEY }).stream({ messages }));
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ code: 'authentication' });
    expect((error as { message: string }).message).toContain('Incorrect API key provided: [redacted]');
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('set as a proxy token through `headers` are redacted too, raw, base64 and URL-encoded, in every upstream error mode', async () => {
    const TOKEN = 'pt-proxy/token+do-not-leak=42';
    const b64 = Buffer.from(TOKEN).toString('base64');
    const bodies: [number, string][] = [
      [401, JSON.stringify({ error: { message: `bad token ${TOKEN}` } })],
      [403, JSON.stringify({ error: { message: `echo: ${b64}` } })],
      [502, `<html>gateway saw ${encodeURIComponent(TOKEN)} from http://10.1.2.3:8443/x</html>`],
      [500, JSON.stringify({ message: `Request headers: x-proxy-token: ${TOKEN}` })],
      [400, JSON.stringify({ detail: [{ msg: `token=${b64.replace(/=+$/, '')}` }] })],
    ];
    for (const [status, body] of bodies) {
      const server = await serve((_req, res) => {
        res.writeHead(status, { 'content-type': body.startsWith('<') ? 'text/html' : 'application/json' });
        res.end(body);
      });
      const model = openai.model('gpt-5', { baseURL: server.url, headers: { 'x-proxy-token': TOKEN, authorization: `Bearer ${TOKEN}` }, retry: false });
      const events = await drain(model.stream({ messages }));
      const text = JSON.stringify(events);
      expect(events.find((e) => e.type === 'error'), body).toBeDefined();
      for (const form of [TOKEN, b64, b64.replace(/=+$/, ''), encodeURIComponent(TOKEN), '10.1.2.3', '8443']) expect(text, `${status}: ${form}`).not.toContain(form);
    }
  });

  it('a 429\'s Retry-After travels on the error event as retryAfterMs', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
      res.end(JSON.stringify({ error: { message: 'slow down' } }));
    });
    const events = await drain(openai.model('gpt-5', { baseURL: server.url, apiKey: KEY, retry: false }).stream({ messages }));
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 3_600_000 });
  });

  it('never appear in a serialized or inspected model or provider', () => {
    const provider = openai.withSettings({ apiKey: KEY });
    const model = provider.model('gpt-5');
    const viaResolve = resolveModel('anthropic:claude-sonnet-4-5', { apiKey: KEY });
    for (const value of [provider, model, viaResolve, anthropic.model('x', { apiKey: KEY })]) {
      expect(JSON.stringify(value)).not.toContain(KEY);
      expect(inspect(value, { depth: 10, showHidden: true })).not.toContain(KEY);
    }
    expect(JSON.parse(JSON.stringify(model))).toEqual({ provider: 'openai', modelId: 'gpt-5', dialect: 'openai_responses' });
  });

  it('are not in a network error message', async () => {
    const server = await serve(() => {});
    const url = server.url;
    await server.close();
    const events = await drain(
      openai.model('gpt-5', { baseURL: url, apiKey: KEY, retry: false }).stream({ messages }),
    );
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'network' });
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('are read from the env at call time, and a missing key fails before any request', async () => {
    const server = await serve((_req, res) => sendJson(res, 500, { error: { message: 'x' } }));
    const env: Record<string, string | undefined> = {};
    const model = anthropic.model('claude-sonnet-4-5', { baseURL: server.url, env, retry: false });
    const missing = await drain(model.stream({ messages }));
    expect(server.requests).toHaveLength(0);
    expect(missing.find((e) => e.type === 'error')).toMatchObject({
      code: 'authentication',
      message: 'No API key for Anthropic: pass apiKey or set ANTHROPIC_API_KEY',
    });
    env.ANTHROPIC_API_KEY = KEY;
    await drain(model.stream({ messages }));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers['x-api-key']).toBe(KEY);
  });

  it('can come from a function, called for each request', async () => {
    const server = await serve((_req, res) => sendJson(res, 400, { error: { message: 'bad' } }));
    let calls = 0;
    const model = openai.model('gpt-5', { baseURL: server.url, apiKey: async () => `${KEY}-${++calls}` });
    await drain(model.stream({ messages }));
    await drain(model.stream({ messages }));
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}-1`, `Bearer ${KEY}-2`]);
  });
});
