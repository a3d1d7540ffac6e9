import { readFile } from 'node:fs/promises';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig, type Plugin } from 'vitest/config';

/**
 * The workerd project runs @modelcontextprotocol/sdk through Vite, which follows each file's
 * `sourceMappingURL`: the SDK (1.32.2, the latest) publishes maps that name `../../src/*.ts`
 * without shipping `src/`, so Vite said "Sourcemap for … points to missing source files" 22 times
 * per run. Those maps can map to nothing: the SDK's files are loaded without that comment (and
 * every other warning still shows).
 */
const MCP_SDK_FILE = /\/@modelcontextprotocol\/sdk\/dist\/.*\.js$/;
const mcpSdkWithoutSourceMaps: Plugin = {
  name: 'parlance:mcp-sdk-without-source-maps',
  enforce: 'pre',
  async load(id) {
    const file = id.split('?')[0]!;
    if (!MCP_SDK_FILE.test(file)) return null;
    return (await readFile(file, 'utf8')).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  },
};

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'node', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], environment: 'node', testTimeout: 30_000 } }, // a guard against a hang on 2 busy cores, not a speed check
      {
        // The main entry inside workerd (the Workers runtime), with no nodejs_compat flag.
        plugins: [mcpSdkWithoutSourceMaps, cloudflareTest({ wrangler: { configPath: './test-workerd/wrangler.jsonc' } })],
        test: { name: 'workerd', include: ['test-workerd/**/*.test.ts'], testTimeout: 30_000 },
      },
    ],
  },
});
