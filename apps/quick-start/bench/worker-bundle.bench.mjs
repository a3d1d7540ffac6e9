// The quick start's server.ts bundled as a Cloudflare Worker bundles it (esbuild, the workerd /
// worker / browser export conditions, minified), and its size gzipped. Goal: under 100 KB gzipped.
// Also lists what the bytes are made of, so a regression names its cause.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const GOAL = 100 * 1024;
const result = await build({
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
const bytes = result.outputFiles[0].contents;
const gzipped = gzipSync(bytes, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`quick-start worker bundle: ${kb(bytes.length)} minified, ${kb(gzipped)} gzipped (goal under ${kb(GOAL)} gzipped: ${gzipped < GOAL ? 'met' : 'NOT met'})`);
const parts = {};
for (const [path, { bytesInOutput }] of Object.entries(Object.values(result.metafile.outputs)[0].inputs)) {
  const dep = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  const key = dep ?? (/packages\/([^/]+)/.exec(path)?.[1] ? `@parlance/${/packages\/([^/]+)/.exec(path)[1]}` : path);
  parts[key] = (parts[key] ?? 0) + bytesInOutput;
}
for (const [name, size] of Object.entries(parts).sort((a, b) => b[1] - a[1])) console.log(`  ${name.padEnd(28)} ${kb(size)} minified`);
