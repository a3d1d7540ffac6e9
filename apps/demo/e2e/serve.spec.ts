// Issue #29, item 2: the production server (`pnpm start`, server.ts) sends the page and its script
// compressed to a browser that accepts it, and plain to a client that does not.
import { expect, test } from '@playwright/test';

test('the script is served gzipped when asked for, plain otherwise', async ({ request }) => {
  // (index.html is under the 1 kB below which compressing does not pay.)
  const html = await (await request.get('/')).text();
  const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
  expect(script, 'the built page names its script').toBeTruthy();
  const gzipped = await request.get(script!, { headers: { 'Accept-Encoding': 'gzip' } });
  expect(gzipped.ok()).toBe(true);
  expect(gzipped.headers()['content-encoding']).toBe('gzip');
  expect(gzipped.headers().vary).toMatch(/accept-encoding/i);
  expect((await gzipped.text()).length).toBeGreaterThan(100_000);
  const plain = await request.get(script!, { headers: { 'Accept-Encoding': 'identity' } });
  expect(plain.headers()['content-encoding']).toBeUndefined();
});

test('the API is left uncompressed (its event streams flow unbuffered); the suite runs on a port chosen free', async ({ request, baseURL }) => {
  const models = await request.get('/api/models', { headers: { 'Accept-Encoding': 'gzip' } });
  expect(models.ok()).toBe(true);
  expect(models.headers()['content-encoding']).toBeUndefined();
  expect(new URL(baseURL!).port).toBe(process.env.DEMO_E2E_PORT);
});
