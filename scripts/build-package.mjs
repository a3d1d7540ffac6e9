// Builds one workspace package to ESM dist/: esbuild for JavaScript (one bundle per
// entry of the package's source `exports` map, dependencies external) and native tsc
// for declarations. Run from the package folder: `node ../../scripts/build-package.mjs`.
// In the repo, `exports` point at TypeScript source so tests need no build; the
// published manifest uses `publishConfig.exports`, which points here.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const bundleAll = process.argv.includes('--bundle-all');
const entries = Object.values(pkg.exports ?? {}).filter((v) => typeof v === 'string' && v.endsWith('.ts'));
for (const bin of Object.values(pkg.parlanceBuild?.entries ?? {})) entries.push(bin);
rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: entries,
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: pkg.parlanceBuild?.platform ?? 'neutral',
  target: 'es2022',
  packages: bundleAll ? undefined : 'external',
  mainFields: ['module', 'main'],
  sourcemap: true,
  logLevel: 'warning',
});
if (existsSync('tsconfig.build.json')) {
  const require = createRequire(import.meta.url);
  // TypeScript 7 exports no `bin/tsc` subpath; find the bin beside its package.json.
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
