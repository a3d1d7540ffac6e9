// The size of the quick start's server.ts bundled as a Cloudflare Worker bundles it (./worker-build.mjs), gzipped. Goal: under 100 KB gzipped.
// Also lists what the bytes are made of, so a regression names its cause.
import { gzipSync } from 'node:zlib';
import { buildWorker } from './worker-build.mjs';

const GOAL = 100 * 1024;
const result = await buildWorker();
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
