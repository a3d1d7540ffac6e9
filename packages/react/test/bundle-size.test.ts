// @vitest-environment node
/**
 * The browser cost of Parlance's React layer: @parlance/react + @parlance/client +
 * @parlance/protocol, bundled, minified and gzipped, with react, react-dom and
 * react-query external (the app has them anyway). Budget: 12 KB.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';

const BUDGET = 12 * 1024;

it('bundles react + client + protocol under 12 KB gzipped', async () => {
  const result = await build({
    stdin: {
      contents: "export * from '@parlance/react';\nexport * from '@parlance/client';\nexport * from '@parlance/protocol';\n",
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      loader: 'ts',
    },
    alias: { '@parlance/react': fileURLToPath(new URL('../src/index.ts', import.meta.url)) },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    external: ['react', 'react-dom', 'react/jsx-runtime', '@tanstack/react-query'],
  });
  const minified = result.outputFiles[0]!.contents;
  const gzipped = gzipSync(minified, { level: 9 }).length;
  console.log(`@parlance/react + client + protocol: ${minified.length} B minified, ${gzipped} B gzipped (budget ${BUDGET} B)`);
  expect(result.outputFiles[0]!.text).not.toMatch(/from"zod/);
  expect(gzipped).toBeLessThanOrEqual(BUDGET);
});
