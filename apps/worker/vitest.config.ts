import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        // Inside workerd (the Workers runtime) through @cloudflare/vitest-pool-workers, with this wrangler.jsonc.
        plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.jsonc' } })],
        test: { name: 'workerd', include: ['test/**/*.test.ts'], testTimeout: 30_000 },
      },
      {
        // Node: the Next.js route example, and the Worker run by wrangler (what `wrangler dev` runs) over loopback.
        test: { name: 'node', include: ['examples/**/*.test.ts', 'test-node/**/*.test.ts'], environment: 'node', testTimeout: 60_000 },
      },
    ],
  },
});
