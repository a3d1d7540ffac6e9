// `pnpm bench`: what the quick start ships, measured from the packed tarballs (./ships.ts).
// Needs `pnpm build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packAll } from './pack.ts';
import { INSTALL_GOAL_BYTES, type Measured, measureShips, WORKER_GOAL_GZ } from './ships.ts';
import { publishedPackages } from './workspace.ts';

const out = mkdtempSync(join(tmpdir(), 'parlance-ships-'));
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const parts = (m: Measured) =>
  Object.entries(m.parts)
    .sort((a, b) => b[1] - a[1])
    .map(([name, size]) => `    ${name.padEnd(28)} ${kb(size)} minified`)
    .join('\n');
try {
  const ships = await measureShips(packAll(publishedPackages(), out));
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(`What the quick start ships, from the packed tarballs (npm install in a scratch app):`);
  console.log(`  Worker bundle (server.ts): ${kb(ships.worker.bytes)} minified, ${kb(ships.worker.gzipped)} gzipped (goal <= ${kb(WORKER_GOAL_GZ)}: ${met(ships.worker.gzipped <= WORKER_GOAL_GZ)})`);
  console.log(parts(ships.worker));
  console.log(`  client JS added (chat.tsx, react external): ${kb(ships.client.bytes)} minified, ${kb(ships.client.gzipped)} gzipped`);
  console.log(parts(ships.client));
  console.log(`  install (node_modules, with hono, zod, react, react-dom): ${mb(ships.installBytes)} (goal <= ${mb(INSTALL_GOAL_BYTES)}: ${met(ships.installBytes <= INSTALL_GOAL_BYTES)})`);
  rmSync(ships.app, { recursive: true, force: true });
} finally {
  rmSync(out, { recursive: true, force: true });
}
