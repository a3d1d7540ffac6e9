/**
 * What a user ships, measured from the packed tarballs in a generated app (not from the repo's
 * sources): the README's quick start (apps/quick-start's server.ts and chat.tsx, copied) installed
 * with npm next to what it imports, then
 * - the Worker bundle: server.ts bundled as wrangler bundles a Worker (esbuild, the workerd /
 *   worker / browser conditions, minified), gzipped;
 * - client JS: chat.tsx bundled for the browser, minified, gzipped, with react and react-dom
 *   external (the app has them anyway): what Parlance adds to a page;
 * - the install footprint: the bytes of every file npm put in node_modules.
 * Shared by `pnpm bench` (ships.bench.ts, which prints them) and ships.test.ts (which holds the goals).
 */
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import type { PackedPackage } from './pack.ts';
import { scratchApp } from './scratch-app.ts';
import { readManifest, repoRoot } from './workspace.ts';

/** Goals of issue #28: the quick-start Worker from the tarballs, and the install. */
export const WORKER_GOAL_GZ = 90 * 1024;
export const INSTALL_GOAL_BYTES = 20 * 1024 * 1024;

/** What the quick start's app adds beside Parlance (its imports). */
export const QUICK_START_DEPS: Record<string, string> = { hono: '4.13.19', zod: '4.6.7', react: '19.3.1', 'react-dom': '19.3.1' };
/** The packages the quick start installs (the README's install line). */
export const QUICK_START_PACKAGES = ['@parlance/server', '@parlance/engine', '@parlance/react'];

export interface Measured {
  bytes: number;
  gzipped: number;
  /** Minified bytes by package (`@parlance/engine`, `zod`, ...). */
  parts: Record<string, number>;
  /** Every input file of the bundle, relative to the app. */
  inputs: string[];
}

export interface Ships {
  app: string;
  worker: Measured;
  client: Measured;
  installBytes: number;
}

function measured(text: Uint8Array, metafile: Metafile): Measured {
  const parts: Record<string, number> = {};
  const output = Object.values(metafile.outputs)[0]!;
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path;
    parts[name] = (parts[name] ?? 0) + bytesInOutput;
  }
  return { bytes: text.length, gzipped: gzipSync(text, { level: 9 }).length, parts, inputs: Object.keys(output.inputs) };
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** Installs the quick start from the tarballs in a scratch app and measures what it ships. */
export async function measureShips(packed: PackedPackage[]): Promise<Ships> {
  // The quick start's packages and their @parlance dependencies, all from the tarballs (the
  // registry has none of this version); nothing else of ours (no testing kit, CLI, MCP).
  const names = new Set(QUICK_START_PACKAGES);
  for (const name of names) {
    const manifest = readManifest(packed.find((p) => p.name === name)!.dir);
    for (const dep of Object.keys(manifest.dependencies ?? {})) if (dep.startsWith('@parlance/')) names.add(dep);
  }
  const app = await scratchApp('ships', packed.filter((p) => names.has(p.name)), QUICK_START_DEPS);
  const installBytes = folderBytes(join(app, 'node_modules'));
  for (const file of ['server.ts', 'chat.tsx']) cpSync(join(repoRoot, 'apps/quick-start', file), join(app, file));
  const common = { bundle: true, minify: true, format: 'esm', write: false, metafile: true, logLevel: 'error', absWorkingDir: app } as const;
  const worker = await build({
    ...common,
    entryPoints: ['server.ts'],
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    external: ['node:*', 'cloudflare:*'],
  });
  const client = await build({ ...common, entryPoints: ['chat.tsx'], platform: 'browser', jsx: 'automatic', external: ['react', 'react-dom', 'react/jsx-runtime'] });
  return { app, worker: measured(worker.outputFiles[0]!.contents, worker.metafile), client: measured(client.outputFiles[0]!.contents, client.metafile), installBytes };
}
