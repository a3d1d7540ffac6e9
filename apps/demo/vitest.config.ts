import { defineConfig } from 'vitest/config';

// Node-side tests only (src/**/*.test.ts); the browser tests in e2e/ are Playwright's.
export default defineConfig({
  test: { include: ['src/**/*.test.ts'], environment: 'node' },
});
