// Builds one workspace package to ESM dist/: esbuild for JavaScript and native tsc for
// declarations. Run from the package folder: `node ../../scripts/build-package.mjs`.
// Every source module becomes its own dist module (relative imports kept, `.ts` -> `.js`),
// so an app's bundler sees the same modules as in the repo and `sideEffects: false` drops
// whole unused modules: a package pre-bundled into one file keeps every top-level call
// (a dialect's tables, a registry) whether the app uses it or not (the quick-start Worker
// was 112 KB gzipped from such tarballs against 99 KB from the sources).
// `--bundle-all` (the CLI) bundles each entry whole, dependencies included.
// In the repo, `exports` point at TypeScript source so tests need no build; the
// published manifest uses `publishConfig.exports`, which points here.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const bundleAll = process.argv.includes('--bundle-all');
const entries = Object.values(pkg.exports ?? {}).filter((v) => typeof v === 'string' && v.endsWith('.ts'));
for (const bin of Object.values(pkg.parlanceBuild?.entries ?? {})) entries.push(bin);
rmSync('dist', { recursive: true, force: true });

/** Every non-test TypeScript module under src/. */
function sourceModules(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceModules(path);
    return /\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Keeps relative imports of modules as imports of their dist files; JSON is inlined. */
const perModule = {
  name: 'per-module',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind === 'entry-point' || args.path.endsWith('.json')) return undefined;
      return { path: args.path.replace(/\.tsx?$/, '.js'), external: true };
    });
  },
};

await build({
  entryPoints: bundleAll ? entries : sourceModules('src'),
  plugins: bundleAll ? [] : [perModule],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: bundleAll,
  format: 'esm',
  platform: pkg.parlanceBuild?.platform ?? 'neutral',
  target: 'es2022',
  packages: bundleAll ? undefined : 'external',
  mainFields: ['module', 'main'],
  // No source maps in the packages: the output is one unminified ES2022 module per source module,
  // readable as it is, and the maps (with their sources inlined, so they would not point at
  // missing files) were over half of what a user installs of ours (2.2 of 4.5 MB), which took the
  // quick start's install past its 20 MB goal (tooling/publish/src/ships.test.ts).
  sourcemap: false,
  logLevel: 'warning',
});
if (existsSync('tsconfig.build.json')) {
  const require = createRequire(import.meta.url);
  // TypeScript 7 exports no `bin/tsc` subpath; find the bin beside its package.json.
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
