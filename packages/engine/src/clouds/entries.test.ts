// The clouds stay out of an app that does not import them: the main entry's import graph holds no cloud
// module, signer, JOSE code or cloud catalog; and each cloud entry bundles for a Worker (no Node built-in).
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..');

async function bundle(contents: string) {
  const result = await build({
    stdin: { contents, resolveDir: SRC, loader: 'ts' },
    bundle: true,
    minify: true,
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { inputs: Object.keys(result.metafile.inputs), gzip: gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length, text: result.outputFiles[0]!.text };
}

const CLOUD_CODE = /src\/clouds\/|bedrock-converse|aws4fetch|node_modules\/.*jose\//;

describe('cloud entry points', () => {
  it('the quick start (createEngine from the main entry) bundles no cloud code', async () => {
    const main = await bundle("export { createEngine, resolveModel } from './index.ts';");
    expect(main.inputs.filter((path) => CLOUD_CODE.test(path))).toEqual([]);
  });

  it.each(['azure', 'bedrock', 'vertex'])('%s bundles for a Worker (no Node built-in) and brings only its own cloud', async (cloud) => {
    const result = await bundle(`export * from './clouds/${cloud}/index.ts';`);
    expect(result.inputs.filter((path) => /^node:/.test(path))).toEqual([]);
    expect(result.text).not.toMatch(/from\s*["']node:/);
    const others = ['azure', 'bedrock', 'vertex'].filter((c) => c !== cloud);
    expect(result.inputs.filter((path) => others.some((other) => path.includes(`src/clouds/${other}/`)))).toEqual([]);
  });
});
