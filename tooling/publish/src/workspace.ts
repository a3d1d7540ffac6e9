/** The workspace's packages as the checks see them: published ones (not `private`) and the rest. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}

export interface WorkspacePackage {
  dir: string;
  manifest: Manifest;
}

export const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Every workspace package (the folders pnpm-workspace.yaml lists). */
export function workspacePackages(): WorkspacePackage[] {
  const out: WorkspacePackage[] = [];
  for (const group of ['packages', 'apps', 'tooling']) {
    const base = join(repoRoot, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) {
      const dir = join(base, name);
      if (existsSync(join(dir, 'package.json'))) out.push({ dir, manifest: readManifest(dir) });
    }
  }
  return out;
}

export const publishedPackages = (): WorkspacePackage[] => workspacePackages().filter((p) => !p.manifest.private);
