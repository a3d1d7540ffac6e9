// The quick start's server.ts bundled as a Cloudflare Worker bundles it (esbuild, the workerd /
// worker / browser export conditions, minified). Shared by the size bench and the bundle test.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

/** Builds server.ts into one in-memory ESM file with its esbuild metafile. */
export function buildWorker() {
  return build({
    entryPoints: [fileURLToPath(new URL('../server.ts', import.meta.url))],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    external: ['node:*', 'cloudflare:*'],
    write: false,
    metafile: true,
    logLevel: 'error',
  });
}
