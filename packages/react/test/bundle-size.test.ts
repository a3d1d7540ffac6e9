// @vitest-environment node
/**
 * The browser cost of Parlance's React layer: @parlance/react + @parlance/client +
 * @parlance/protocol, bundled, minified and gzipped, with react, react-dom and
 * react-query external (the app has them anyway). Budget: 14.5 KB (12 KB until branching
 * threads, issue #20: the version tree's codec, fork/switch and the store's edit cost ~1.1 KB;
 * then ~0.6 KB for issues #11-#13: a paused run derived from the thread, sends refused while
 * paused, failed turns kept, stored records quarantined, the run refolded after a reload; then
 * ~0.25 KB for issue #16: the server no longer sends the thread back, so the browser folds it
 * itself: `runMessages`, `threadAfterRun`, `message-metadata`. Every export of the protocol is
 * counted here; an app that does not import `threadAfterRun` does not ship it). Then 18.75 KB for
 * issue #34 (one thread in many tabs) and #26 item 3 (saves that never stop): +4.1 KB, measured
 * 14.53 -> 18.64 KB: the three-way merge by message id (~1 KB), the chat store's tab sync (re-read
 * and merge on another tab's save, following its run, the Web Lock that orders runs, tombstones,
 * the save loop's typed storage error: ~1.1 KB with its saved-copy bookkeeping), the adapters'
 * compare-and-set, two localStorage slots and the IndexedDB transaction (~1.2 KB, only the adapter
 * an app imports ships), the conformance checks are a separate entry and not counted.
 *
 * Then 19 KB for issue #35: the lean SSE wire (wire 2: the protocol's `leanWire`/`wireOf`, which a
 * server uses; the client sends `LEAN_WIRE_ACCEPT` and reads both wires) and the persistence split
 * (`definePersistAdapter`, the store without persistence): measured 18.64 -> 18.9 KB for every export.
 *
 * The second budget is what an app that imports only `useChat` and `useStream` ships (no adapter):
 * 12.6 KB before #34, 15.6 KB after (the store's persistence: merge, sync, run lock, save loop), and
 * 10.8 KB since #35 moved that persistence behind the adapter (`PersistAdapter.attach`): 13 KB is the
 * issue's bound (half the AI SDK's `useChat`).
 *
 * Issue #30 (attachments, `send({ text, files })`): about +2 KB in both (measured 21.47 KB and 12.84 KB
 * with it): the checks against the model's inputs and the limits with their typed errors, the upload
 * with per-file progress over XMLHttpRequest, the inline fallback, the `/models` read, and
 * `fileModality`/`acceptsFile` in the protocol. Budget 21.5 KB; the hooks stay under 13 KB.
 * Then 21.6 KB for #30's edit with files (an edit keeps the message's files, `EditInput` adds or
 * replaces attachments through the same upload path as `send`): measured 21,917 -> 22,055 B.
 *
 * Issue #35, round three (lean small replies): measured 22,055 -> 22,422 B (21.9 KB) for every export: the
 * wire-2 writer holds a `message-start` for the input count after it and leaves out a repeated
 * provenance (`leanWire`, `formatLeanFrame`: a server's, counted here only because this entry
 * exports all of the protocol), and the reader that puts the provenance back (`leanReader`, with
 * `readSse`'s `wire` option and `wireOfResponse`, which the client ships). Budget 22 KB.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';

const BUDGET = 22 * 1024;
const HOOKS_BUDGET = 13 * 1024;

it('bundles react + client + protocol under 22 KB gzipped', async () => {
  const result = await build({
    stdin: {
      contents: "export * from '@parlance/react';\nexport * from '@parlance/client';\nexport * from '@parlance/protocol';\n",
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      loader: 'ts',
    },
    alias: { '@parlance/react': fileURLToPath(new URL('../src/index.ts', import.meta.url)) },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    external: ['react', 'react-dom', 'react/jsx-runtime'],
  });
  const minified = result.outputFiles[0]!.contents;
  const gzipped = gzipSync(minified, { level: 9 }).length;
  console.log(`@parlance/react + client + protocol: ${minified.length} B minified, ${gzipped} B gzipped (budget ${BUDGET} B)`);
  expect(result.outputFiles[0]!.text).not.toMatch(/from"zod/);
  expect(gzipped).toBeLessThanOrEqual(BUDGET);
});

it('useChat + useStream alone (no persistence adapter) bundle under 13 KB gzipped: the tab sync and merge come with the adapter', async () => {
  const result = await build({
    stdin: { contents: "export { useChat, useStream } from '@parlance/react';\n", resolveDir: fileURLToPath(new URL('..', import.meta.url)), loader: 'ts' },
    alias: { '@parlance/react': fileURLToPath(new URL('../src/index.ts', import.meta.url)) },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    external: ['react', 'react-dom', 'react/jsx-runtime'],
  });
  const gzipped = gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
  console.log(`useChat + useStream: ${result.outputFiles[0]!.contents.length} B minified, ${gzipped} B gzipped (budget ${HOOKS_BUDGET} B)`);
  // The adapters are not in it: an app ships only the one it imports.
  expect(result.outputFiles[0]!.text).not.toMatch(/objectStore|setItem|parlance-run:|BroadcastChannel/);
  expect(gzipped).toBeLessThanOrEqual(HOOKS_BUDGET);
});

// Without react-query installed, an app importing only the main entry must still build
// (Rollup/Vite fail on an unresolved import): the react-query hooks live in `@parlance/react/query`.
it('the main entry imports no @tanstack/react-query; the /query subpath does', async () => {
  const imports = async (entry: string) => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL(`../src/${entry}`, import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      packages: 'external',
    });
    return Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  };
  expect(await imports('index.ts')).not.toContain('@tanstack/react-query');
  expect(await imports('query.ts')).toContain('@tanstack/react-query');
});
