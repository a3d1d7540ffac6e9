/**
 * Packs the published packages as they would be published: `pnpm pack` (workspace versions,
 * `publishConfig`, the `files` list, bin, LICENSE), then the manifest cleaned of what only the
 * repo needs (build scripts pointing at ../../scripts, `parlanceBuild`, dev dependencies), then
 * that folder tarred again (the files pnpm chose, under `package/`, as npm expects). Publishing is
 * `npm publish <tarball>` of what this writes.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest, WorkspacePackage } from './workspace.ts';

/** Fields that only matter inside the repo. */
const REPO_ONLY = ['scripts', 'devDependencies', 'parlanceBuild', 'publishConfig'] as const;

/** The manifest a user installs: `publishConfig` applied, repo-only fields dropped. */
export function publishedManifest(manifest: Manifest): Manifest {
  const out: Manifest = { ...manifest, ...(manifest.publishConfig as Partial<Manifest> | undefined) };
  for (const field of REPO_ONLY) delete out[field];
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
    for (const [name, range] of Object.entries(out[field] ?? {})) {
      if (range.startsWith('workspace:')) throw new Error(`${manifest.name}: ${field}.${name} is still ${range} (pack with pnpm, which writes the version)`);
    }
  }
  return out;
}

export interface PackedPackage {
  name: string;
  version: string;
  /** The unpacked package as published (its package.json is the published manifest). */
  dir: string;
  tarball: string;
}

const run = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Packs one built package into `outDir`. */
export function packPackage(pkg: WorkspacePackage, outDir: string): PackedPackage {
  const work = join(outDir, '.work', pkg.manifest.name.replace('/', '+'));
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  if (!existsSync(join(pkg.dir, 'dist'))) throw new Error(`${pkg.manifest.name} is not built (run pnpm build)`);
  run('pnpm', ['pack', '--pack-destination', work], pkg.dir);
  const first = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
  run('tar', ['-xzf', first, '-C', work], work);
  const dir = join(work, 'package');
  const manifest = publishedManifest(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (existsSync(join(pkg.dir, 'README.md'))) copyFileSync(join(pkg.dir, 'README.md'), join(dir, 'README.md'));
  const tarball = join(outDir, first);
  run('tar', ['-czf', tarball, '-C', work, 'package'], work);
  return { name: manifest.name, version: manifest.version, dir, tarball };
}

/** Packs every published package into `outDir` (see {@link packPackage}). */
export function packAll(packages: WorkspacePackage[], outDir: string): PackedPackage[] {
  return packages.map((pkg) => packPackage(pkg, outDir));
}
