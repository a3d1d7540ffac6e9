/**
 * What the browser downloads: Parlance's `useChat` + `useStream` (with everything they pull from
 * @parlance/client and @parlance/protocol; and with `localStorageAdapter`, which brings the
 * persistence: merge, tab sync, the run lock) beside the AI SDK's `useChat` (@ai-sdk/react with `ai`),
 * each bundled by esbuild, minified, gzipped (level 9), React external (the app has it anyway).
 * The AI SDK's figure leaves zod out too (a peer dependency of `ai`, which imports all of zod v4:
 * ~500 KB minified, so counting it would say more about zod than about `useChat`).
 *
 * @example
 * const { parlance, persisted, aisdk } = await bundleSizes(); // gzipped bytes
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

async function gzipped(contents: string, external: string[] = []): Promise<number> {
  const result = await build({
    stdin: { contents, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    external: ['react', 'react-dom', 'react/jsx-runtime', ...external],
  });
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
}

export async function bundleSizes(): Promise<{ parlance: number; persisted: number; aisdk: number }> {
  return {
    parlance: await gzipped("export { useChat, useStream } from '@parlance/react';"),
    // With persistence: the adapter brings the merge, tab sync and run lock (ChatStore does not ship them).
    persisted: await gzipped("export { useChat, useStream } from '@parlance/react'; export { localStorageAdapter } from '@parlance/client';"),
    aisdk: await gzipped("export { useChat } from '@ai-sdk/react';", ['zod', 'zod/*']),
  };
}
