/**
 * Engine checks. A published package promises a Node range (`engines.node`); every package it
 * pulls in at run time must accept that whole range, or users get `EBADENGINE` warnings on
 * install (eventsource-parser 4.x wants >=22.12 while we say >=20.19). Tools the repo runs with
 * (dev dependencies) must accept the Node that runs them.
 *
 * The graph is walked the way Node resolves packages (node_modules up the tree from the real
 * path), so it sees what is installed, not what lingers in pnpm's virtual store.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import semver from 'semver';
import { readManifest, type Manifest } from './workspace.ts';

export interface EngineMismatch {
  /** `name@version` of the package whose engines do not fit. */
  package: string;
  /** Its `engines.node`. */
  wants: string;
  /** The range (or version) it must accept. */
  required: string;
  /** How it is reached: the chain of package names from the root. */
  via: string[];
}

/** The installed folder of `name` as Node would resolve it from `fromDir`, or undefined. */
export function resolvePackageDir(fromDir: string, name: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether `engines.node` accepts `required`: a version (`v20.20.2`) or every version of a range (`>=20.19`). */
export function accepts(wants: string, required: string): boolean {
  const version = semver.valid(semver.clean(required) ?? '');
  return version ? semver.satisfies(version, wants, { includePrerelease: true }) : semver.subset(required, wants);
}

type Kind = 'dependencies' | 'devDependencies' | 'peerDependencies' | 'optionalDependencies';

/**
 * Walks the installed dependency graph from `rootDir` and lists every package whose `engines.node`
 * does not accept `required`. The root's own dependency kinds are `rootKinds`; below the root, only
 * what a package needs at run time (dependencies, optional and installed peer dependencies).
 */
export function checkEngines(rootDir: string, required: string, rootKinds: Kind[]): EngineMismatch[] {
  const mismatches: EngineMismatch[] = [];
  const seen = new Set<string>();
  const visit = (dir: string, manifest: Manifest, kinds: Kind[], via: string[]) => {
    const names = new Set(kinds.flatMap((k) => Object.keys(manifest[k] ?? {})));
    for (const name of names) {
      const depDir = resolvePackageDir(dir, name);
      // An optional peer (or a platform-specific optional dependency) that is not installed.
      if (!depDir) continue;
      if (seen.has(depDir)) continue;
      seen.add(depDir);
      const dep = readManifest(depDir);
      const wants = dep.engines?.node;
      if (wants && !accepts(wants, required)) mismatches.push({ package: `${dep.name}@${dep.version}`, wants, required, via: [...via, name] });
      visit(depDir, dep, ['dependencies', 'optionalDependencies', 'peerDependencies'], [...via, name]);
    }
  };
  visit(rootDir, readManifest(rootDir), rootKinds, []);
  return mismatches;
}
