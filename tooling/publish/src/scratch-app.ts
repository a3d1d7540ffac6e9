/**
 * A scratch app outside the workspace that installs the packed tarballs with npm, as a user's
 * app does (no workspace links, no pnpm), next to the other packages it names.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PackedPackage } from './pack.ts';

export const exec = promisify(execFile);

/** A temp folder with a package.json naming the tarballs and `deps`, installed with `npm install`. */
export async function scratchApp(prefix: string, packed: PackedPackage[], deps: Record<string, string>, extra: Record<string, unknown> = {}): Promise<string> {
  const app = mkdtempSync(join(tmpdir(), `parlance-${prefix}-`));
  const all: Record<string, string> = { ...Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`])), ...deps };
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: prefix, private: true, type: 'module', dependencies: all, ...extra }, null, 2));
  // No --legacy-peer-deps, no --force: a peer range that excludes what the app has fails here with ERESOLVE.
  await exec('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
  return app;
}
