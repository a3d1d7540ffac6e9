// The main entry must bundle for a runtime without Node (a browser or an edge worker):
// stdio, which spawns processes, lives behind `@parlance/mcp/stdio` only.
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const bundle = (entry: string) =>
  build({
    entryPoints: [join(import.meta.dirname, entry)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });

describe('entries', () => {
  it('the main entry bundles for the browser with no Node built-in and no process spawning', async () => {
    const result = await bundle('index.ts');
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => /^node:|child_process|cross-spawn/.test(path))).toEqual([]);
    expect(result.outputFiles[0]!.text).not.toMatch(/from\s*["']node:/);
  });

  it('the stdio entry needs Node (so it cannot leak into an edge bundle unnoticed)', async () => {
    await expect(bundle('stdio.ts')).rejects.toThrow();
  });
});
