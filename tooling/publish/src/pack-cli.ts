// `pnpm --filter @parlance/publish-checks pack-tarballs [outDir]`: the tarballs to publish (after `pnpm build`), default ./.packed at the repo root.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packPackage } from './pack.ts';
import { publishedPackages, repoRoot } from './workspace.ts';

const outDir = resolve(process.argv[2] ?? join(repoRoot, '.packed'));
mkdirSync(outDir, { recursive: true });
for (const pkg of publishedPackages()) console.log(packPackage(pkg, outDir).tarball);
