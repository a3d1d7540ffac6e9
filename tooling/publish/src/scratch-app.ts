/**
 * A scratch app outside the workspace that installs the packed tarballs with npm, as a user's
 * app does (no workspace links, no pnpm), next to the other packages it names.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PackedPackage } from './pack.ts';

export const exec = promisify(execFile);

/** A temp folder with a package.json naming the tarballs and `deps`, installed with `npm install`. */
export async function scratchApp(prefix: string, packed: PackedPackage[], deps: Record<string, string>, extra: Record<string, unknown> = {}): Promise<string> {
  const app = mkdtempSync(join(tmpdir(), `parlance-${prefix}-`));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: prefix, private: true, type: 'module', dependencies: {}, ...extra }, null, 2));
  await installInto(app, packed, deps);
  return app;
}

/** Adds the tarballs and `deps` to the dependencies of the app in `app` (a generated one too), then runs `npm install`. */
export async function installInto(app: string, packed: PackedPackage[], deps: Record<string, string>): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  manifest.dependencies = { ...manifest.dependencies, ...Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`])), ...deps };
  writeFileSync(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
  // No --legacy-peer-deps, no --force: a peer range that excludes what the app has fails here with ERESOLVE.
  await exec('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
}

/**
 * {@link installInto} with pnpm, for apps with big frameworks (Next.js, React Router): pnpm links
 * them from the store the repo's own install filled (the same versions as `apps/next`,
 * `apps/react-router`) instead of unpacking ~150 MB per app (npm: ~60 s, pnpm: ~10 s here).
 * Every Parlance package resolves to its tarball (an override: the registry has none of this
 * version), and a dependency's build script the app has not approved is skipped, not an error.
 */
export async function installWithPnpm(app: string, packed: PackedPackage[], deps: Record<string, string>): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  const tarballs = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
  manifest.dependencies = { ...manifest.dependencies, ...tarballs, ...deps };
  writeFileSync(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
  const overrides = Object.entries(tarballs).map(([name, spec]) => `  '${name}': '${spec}'\n`);
  // pmOnFail: ignore, as the repo's own pnpm-workspace.yaml: create-next-app writes a `packageManager` pin, and
  // recording it makes pnpm look up every @pnpm/exe.<platform> package, some of which 404 on the registry these
  // machines reach (ERR_PNPM_BAD_CONFIG_DEP ... @pnpm/exe.netbsd-x64, on some runs: ../shared/TOOLING.md).
  writeFileSync(join(app, 'pnpm-workspace.yaml'), `overrides:\n${overrides.join('')}strictDepBuilds: false\npmOnFail: ignore\n`);
  // No lockfile to freeze (CI=true would ask for one); cached metadata first, the registry for what the store lacks.
  await exec('pnpm', ['install', '--no-frozen-lockfile', '--prefer-offline', '--reporter=silent'], { cwd: app });
}
