/**
 * The Playwright config of the browser-tested apps: Debian's chromium, one worker, and the app's
 * production server (`next start`, `react-router-serve`, `tsx server.ts`) on a free 127.0.0.1 port
 * with no provider keys, so the demo's mock model answers. The framework apps share the specs in
 * ./specs; an app with its own specs (apps/ai-sdk-ui) names its `testDir`.
 */
import { defineConfig, type PlaywrightTestConfig } from '@playwright/test';
import { execFileSync } from 'node:child_process';

/** A port nobody listens on now. Kept in the environment: Playwright's workers load this config again and must agree. */
function freePort(): number {
  process.env.E2E_PORT ??= execFileSync(process.execPath, [
    '-e',
    "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); })",
  ])
    .toString()
    .trim();
  return Number(process.env.E2E_PORT);
}

export interface FrameworkE2eOptions {
  /** The command that serves the built app on 127.0.0.1:`port` (it also gets `PORT` and `HOST` in its environment). */
  command: (port: number) => string;
  /** The specs, relative to the app's playwright.config.ts (default: the shared framework specs). */
  testDir?: string;
  /** The path that answers once the server is ready (default `/api/chat/models`). */
  readyPath?: string;
  /** More environment for the server (the provider keys stay empty). */
  env?: Record<string, string>;
  /** How long an `expect` waits for its condition, in ms (Playwright's default 5 s unless given). */
  expectTimeoutMs?: number;
}

export function frameworkConfig(options: FrameworkE2eOptions): PlaywrightTestConfig {
  // Not PORT: other apps (the demo) may be given that one while these tests run.
  const port = freePort();
  return defineConfig({
    // Relative to the app's playwright.config.ts (apps/<name>/).
    testDir: options.testDir ?? '../../tooling/framework-e2e/specs',
    fullyParallel: false,
    workers: 1,
    timeout: 60_000,
    ...(options.expectTimeoutMs !== undefined ? { expect: { timeout: options.expectTimeoutMs } } : {}),
    reporter: process.env.CI ? 'line' : 'list',
    use: {
      baseURL: `http://127.0.0.1:${port}`,
      browserName: 'chromium',
      headless: true,
      launchOptions: {
        // Debian's chromium (apt-get install chromium); Playwright's own browser download is unreachable here.
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      },
    },
    webServer: {
      command: options.command(port),
      url: `http://127.0.0.1:${port}${options.readyPath ?? '/api/chat/models'}`,
      reuseExistingServer: false,
      timeout: 120_000,
      // No provider keys: the tests talk to the demo's mock model only.
      env: { ...options.env, PORT: String(port), HOST: '127.0.0.1', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', GOOGLE_GENERATIVE_AI_API_KEY: '' },
    },
  });
}
