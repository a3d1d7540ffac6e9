import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'node', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], environment: 'node', testTimeout: 30_000 } }, // a guard against a hang on 2 busy cores, not a speed check
      {
        // Inside workerd (the Workers runtime) through @cloudflare/vitest-pool-workers.
        plugins: [cloudflareTest({ wrangler: { configPath: './test-workerd/wrangler.jsonc' } })],
        // globalSetup (in Node): the local S3 server the S3 store's workerd test talks to.
        test: { name: 'workerd', include: ['test-workerd/**/*.test.ts'], testTimeout: 30_000, globalSetup: ['./test/s3-global-setup.ts'] },
      },
    ],
  },
});
