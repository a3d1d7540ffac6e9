// The README's gateway example (gateway.ts, pasted verbatim into the README) run: an OpenAI
// Chat Completions caller with the team's gateway key reaches `openai:gpt-5-mini` (OpenAI's
// Responses wire format, from a mock behind the global fetch) with the key from the environment;
// the key's allow-list refuses the other route; usage and cost are reported per key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mockProviderServer } from '@parlance/testing';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { app } from './gateway.ts';

const openai = mockProviderServer({ dialect: 'openai_responses', script: [{ text: 'Hello from gpt-5-mini.', usage: { inputTokens: 1000, outputTokens: 100 } }] });

beforeEach(() => {
  vi.stubEnv('OPENAI_API_KEY', 'sk-openai-gateway-secret');
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith('https://api.openai.com/')) return openai(new Request(url, init));
    throw new Error(`unexpected fetch ${url}`);
  });
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

it('is pasted verbatim in the README', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  expect(readme).toContain(readFileSync(join(import.meta.dirname, 'gateway.ts'), 'utf8').trim());
});

it('runs: the team key reaches its route with the server key, is refused the other, and usage is logged with its cost', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const ask = (model: string) =>
    app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer sk-team-a', 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
  const response = await ask('fast');
  expect(response.status).toBe(200);
  const body = await response.text();
  expect(JSON.parse(body)).toMatchObject({ object: 'chat.completion', model: 'fast', choices: [{ message: { content: 'Hello from gpt-5-mini.' } }] });
  expect(body).not.toContain('sk-openai-gateway-secret');
  expect(openai.requests.at(-1)).toMatchObject({ model: 'gpt-5-mini', headers: { authorization: 'Bearer sk-openai-gateway-secret' } });
  expect((await ask('smart')).status).toBe(403);
  await vi.waitFor(() => expect(log).toHaveBeenCalledWith('team-a', 'fast', expect.any(Number)));
  log.mockRestore();
});
