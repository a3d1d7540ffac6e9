import { execFileSync } from 'node:child_process';
import { defineConfig } from '@playwright/test';

/**
 * A port nobody listens on now, so two checkouts can test on one machine (a fixed port collided).
 * Kept in the environment: Playwright's workers load this config again and must agree. The same
 * as @parlance/framework-e2e's, written again here because that package depends on this one.
 * DEMO_E2E_PORT pins it.
 */
function freePort(): number {
  process.env.DEMO_E2E_PORT ??= execFileSync(process.execPath, [
    '-e',
    "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); })",
  ])
    .toString()
    .trim();
  return Number(process.env.DEMO_E2E_PORT);
}

const PORT = freePort();

export default defineConfig({
  testDir: './e2e',
  fullyParallel: false,
  workers: 1,
  timeout: 60_000,
  // How long an expectation waits for the page: CI runs this beside the other suites on 2 cores,
  // where a mock answer that takes 1 s alone can take several; 5 s (the default) failed there.
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1200, height: 860 },
    launchOptions: {
      // Debian's chromium (apt-get install chromium); Playwright's own browser download is unreachable here.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  // Desktop runs every spec; the phone project (a 390x844 touch viewport) runs the specs that check
  // what people do on phones (layout, reloads, approvals), so CI time does not double.
  projects: [
    { name: 'desktop' },
    {
      name: 'phone',
      testMatch: /(layout|survives|follow|serve|regenerate|icons|stream-table|stopped-usage|not-saved|export|settings|code-block)\.spec\.ts$/,
      use: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
    },
  ],
  webServer: {
    // The production-style server over the `vite build` output (the test script builds first);
    // E2E_DEV=1 runs the same tests against the Vite dev server (`pnpm dev`, React StrictMode on).
    command: process.env.E2E_DEV ? `vite --port ${PORT} --strictPort` : 'tsx server.ts',
    url: `http://127.0.0.1:${PORT}/api/models`,
    reuseExistingServer: false,
    timeout: 120_000,
    // No provider keys: the tests talk to the built-in mock model only.
    env: { PORT: String(PORT), OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', GOOGLE_GENERATIVE_AI_API_KEY: '' },
  },
});
