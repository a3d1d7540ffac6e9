import { defineConfig } from 'vitest/config';

// Node-side tests only (src/**/*.test.ts); the browser tests in e2e/ are Playwright's.
export default defineConfig({
  // testTimeout: a guard against a hang on 2 busy cores (CI runs suites side by side), not a speed check.
  test: { include: ['src/**/*.test.ts'], environment: 'node', testTimeout: 30_000 },
});
