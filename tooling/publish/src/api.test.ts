/**
 * The published surface: every entry point lists its exports by name (no `export *`), internals
 * stay out of it (tests reach them by path), every exported symbol carries TSDoc with an example,
 * and every package README documents exactly what its entries export.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withApi } from './api-docs.ts';
import { apiSurface, hasExample } from './api-surface.ts';
import { publishedPackages } from './workspace.ts';

const packages = publishedPackages();
const surfaces = packages.map((pkg) => ({ pkg, entries: apiSurface(pkg) }));
const exported = (name: string) =>
  surfaces.flatMap(({ pkg, entries }) => entries.filter((e) => e.symbols.some((s) => s.name === name)).map((e) => `${pkg.manifest.name} ${e.entry}`));

/**
 * Helpers the issue found in public indexes: implementation details of one package. Not
 * `decodeDialectStream` any more: the engine decodes with it across packages, because
 * `decodeStream` also takes a dialect id and so bundles every dialect (issue #28 item 4).
 */
const INTERNALS = [
  'readErrorBody',
  'redact',
  'parseRetryAfter',
  'decodeResponse',
  'addToCollect',
  'withMissingResults',
  'createStreamState',
  'parseJson',
  'decodeDialectText',
  'nextFrame',
  'emitRunFinish',
  'request',
];

/** Where a user starts: each needs TSDoc with an @example. */
const STARTING_POINTS: Record<string, string[]> = {
  '@parlance/protocol': ['ParlanceError', 'reduceEvents', 'collectResponse', 'messageText', 'pendingInputs'],
  '@parlance/dialects': ['getDialect', 'decodeStream', 'decodeText'],
  '@parlance/engine': ['createEngine', 'tool', 'resolveModel', 'defineProvider', 'openaiCompatible', 'ChatSession'],
  '@parlance/server': ['createParlanceApp', 'createParlanceHandler', 'engineRunner', 'catalogModels', 'createMemoryRunStore'],
  '@parlance/client': ['ChatStore', 'StreamStore', 'localStorageAdapter', 'indexedDbAdapter', 'fetchModels'],
  '@parlance/react': ['useChat', 'UseChatResult', 'useStream', 'useMessage', 'useThreadMessageIds', 'ChatProvider', 'useThreads', 'useThread'],
  '@parlance/testing': ['fakeModel', 'mockProviderServer'],
  '@parlance/mcp': ['mcpTools'],
  '@parlance/cli': ['runCli'],
};

describe('the published surface', () => {
  it('entry points list their exports by name (no export *)', () => {
    const stars = surfaces.flatMap(({ pkg, entries }) => entries.flatMap((e) => e.stars.map((s) => `${pkg.manifest.name} ${e.entry}: export * from '${s}'`)));
    expect(stars).toEqual([]);
  });

  it('keeps internals out of every entry point', () => {
    expect(Object.fromEntries(INTERNALS.map((name) => [name, exported(name)]))).toEqual(Object.fromEntries(INTERNALS.map((name) => [name, []])));
  });

  it('gives every starting point TSDoc with an @example', () => {
    const missing: string[] = [];
    for (const [name, symbols] of Object.entries(STARTING_POINTS)) {
      const entries = surfaces.find((s) => s.pkg.manifest.name === name)!.entries;
      for (const symbol of symbols) {
        const found = entries.flatMap((e) => e.symbols).find((s) => s.name === symbol);
        if (!found || !hasExample(found.doc)) missing.push(`${name} ${symbol}${found ? '' : ' (not exported)'}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives every exported symbol (functions, classes, constants and types) TSDoc with an @example', () => {
    const missing = surfaces.flatMap(({ pkg, entries }) =>
      entries.flatMap((e) => e.symbols.filter((s) => !hasExample(s.doc)).map((s) => `${pkg.manifest.name} ${e.entry} ${s.name}`)),
    );
    expect(missing).toEqual([]);
  });

  it('states how much of the surface has TSDoc and examples', () => {
    const all = surfaces.flatMap(({ entries }) => entries.flatMap((e) => e.symbols));
    const documented = all.filter((s) => s.doc).length;
    const examples = all.filter((s) => hasExample(s.doc)).length;
    console.log(`public API: ${all.length} exports, ${documented} with TSDoc, ${examples} with an @example`);
    expect(all.length).toBeGreaterThan(100);
  });

  it.each(packages.map((pkg) => [pkg.manifest.name, pkg] as const))('%s has a README whose API section is current', (_, pkg) => {
    const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
    expect(readme).toMatch(/^# @parlance\//);
    expect(readme).toMatch(/\n## Install\n/);
    expect(readme).toMatch(/\n## Example\n/);
    // Run `pnpm --filter @parlance/publish-checks api-docs` after changing exports or their TSDoc.
    expect(readme).toBe(withApi(readme, pkg));
  });
});
