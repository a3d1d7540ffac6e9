// The README's quick start (server.ts + chat.tsx, pasted verbatim into the README) run
// end to end: the React hook in jsdom, the Hono app, the engine with its tool, and
// Anthropic's real wire format from a mock provider behind the global fetch.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mockProviderServer } from '@parlance/testing';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Chat } from './chat.tsx';
import { app } from './server.ts';

const anthropic = mockProviderServer({
  dialect: 'anthropic_messages',
  script: [{ toolCalls: [{ id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] }, { text: 'It is 21°C in Paris.' }],
});
const browserSaw: string[] = [];

beforeEach(() => {
  vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-quickstart-secret');
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith('https://api.anthropic.com/')) return anthropic(new Request(url, init));
    const response = await app.fetch(new Request(new URL(url, 'http://localhost'), init));
    // Keep a copy of what the browser receives, to check no key ever reaches it.
    const [mine, theirs] = response.body ? response.body.tee() : [null, null];
    if (mine) void new Response(mine).text().then((t) => browserSaw.push(t));
    return new Response(theirs, { status: response.status, headers: response.headers });
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

it('is pasted verbatim in the README', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const files = [
    'server.ts',
    'chat.tsx',
    // The framework sections: the apps tested with next build / react-router build and Playwright.
    '../next/app/api/chat/[...path]/route.ts',
    '../next/app/chat.tsx',
    '../next/app/page.tsx',
    '../react-router/app/routes.ts',
    '../react-router/app/routes/home.tsx',
    // Not app/routes/api.chat.ts: the repo's app passes the demo's per-process secret, the README's
    // reads PARLANCE_SECRET; tooling/publish/src/readme-frameworks.test.ts builds and runs the
    // README's React Router section as written (and its Next.js one).
  ];
  for (const file of files) {
    expect(readme, `${file} in README.md`).toContain(readFileSync(join(import.meta.dirname, file), 'utf8').trim());
  }
});

it('runs: the user asks, the tool runs on the server, the answer streams into the page', async () => {
  render(<Chat />);
  fireEvent.change(screen.getByLabelText('Message'), { target: { value: 'Weather in Paris?' } });
  fireEvent.click(screen.getByText('Send'));
  await waitFor(() => expect(screen.getByText(/It is 21°C in Paris\./)).toBeTruthy(), { timeout: 5000 });
  expect(screen.getByText(/Weather in Paris\?/)).toBeTruthy();
  // Two provider calls: the tool call, then the answer after the tool's result.
  expect(anthropic.requests).toHaveLength(2);
  expect(anthropic.requests[0]!.headers['x-api-key']).toBe('sk-ant-quickstart-secret');
  expect(JSON.stringify(anthropic.requests[1]!.body)).toContain('tempC\\":21');
  await waitFor(() => expect(browserSaw.length).toBeGreaterThan(0));
  expect(browserSaw.join('')).not.toContain('sk-ant-quickstart-secret');
});
