/**
 * What the quick start ships, from the packed tarballs in a generated app (./ships.ts): the
 * Worker bundle carries no OpenTelemetry API (no tracer given, none registered) and none of the
 * dialects' gateway half, and only the dialect and catalog table of the one provider it imports; the install carries neither AG-UI (its protobuf encoder and zod 3) nor
 * a second zod, and stays under 20 MB. `pnpm bench` prints the sizes (ships.bench.ts).
 * Needs `pnpm build` first.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAll } from './pack.ts';
import { INSTALL_GOAL_BYTES, measureShips, type Ships, WORKER_GOAL_GZ } from './ships.ts';
import { publishedPackages } from './workspace.ts';


let out: string;
let ships: Ships;
beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'parlance-ships-'));
  ships = await measureShips(packAll(publishedPackages(), out));
}, 300_000);
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  if (ships) rmSync(ships.app, { recursive: true, force: true });
}, 60_000);

describe('the quick start from the tarballs', () => {
  it('bundles as a Worker without @opentelemetry/api, the dialects gateway half, or AG-UI', () => {
    const packages = Object.keys(ships.worker.parts);
    expect(packages).not.toContain('@opentelemetry/api');
    expect(packages.filter((p) => p.startsWith('@ag-ui/'))).toEqual([]);
    expect(ships.worker.inputs.filter((path) => /@parlance\/dialects\/.*(decode-request|encode-response)/.test(path))).toEqual([]);
    // Each dist module is its own module: the bundler drops unused ones (a pre-bundled dist kept them all: 112 KB gzipped).
    expect(ships.worker.inputs.filter((path) => path.includes('@parlance/engine/dist/')).length).toBeGreaterThan(20);
    expect(ships.worker.gzipped).toBeLessThanOrEqual(WORKER_GOAL_GZ);
  });

  // The goal is met by per-provider entry points (`@parlance/engine/providers/anthropic`): 103 KB gzipped
  // with every dialect's client half (82 KB minified) and the whole catalog (30 KB) through the root's
  // string resolver, 80 KB with the Anthropic ones alone.
  it('bundles only the dialect and catalog table of the provider it imports', () => {
    const dialects = ships.worker.inputs.filter((path) => path.includes('@parlance/dialects/dist/'));
    expect(dialects.filter((path) => /\/(openai-completions|openai-responses|google-gemini|ollama-chat)\//.test(path))).toEqual([]);
    expect(dialects.some((path) => path.endsWith('anthropic-messages/decode.js'))).toBe(true);
    const catalog = ships.worker.inputs.filter((path) => path.includes('@parlance/engine/dist/catalog/'));
    expect(catalog.map((path) => path.replace(/.*\/dist\/catalog\//, '')).sort()).toEqual(['model-info.js', 'models/anthropic.js']);
  });

  it('adds the client, protocol and React layer to a page and nothing of the server', () => {
    expect(Object.keys(ships.client.parts).filter((p) => p.startsWith('@parlance/')).sort()).toEqual(['@parlance/client', '@parlance/protocol', '@parlance/react']);
  });

  it('installs under 20 MB, with one zod and no AG-UI, protobuf or OpenTelemetry', () => {
    const modules = join(ships.app, 'node_modules');
    expect(existsSync(join(modules, '@ag-ui'))).toBe(false);
    expect(existsSync(join(modules, '@opentelemetry'))).toBe(false);
    expect(existsSync(join(modules, '@bufbuild')) || existsSync(join(modules, 'protobufjs'))).toBe(false);
    const nested = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.name === 'zod' && dir !== modules ? [join(dir, e.name)] : e.isDirectory() && e.name !== '.bin' ? nested(join(dir, e.name)) : []));
    expect(nested(modules)).toEqual([]);
    expect(ships.installBytes).toBeLessThanOrEqual(INSTALL_GOAL_BYTES);
  });
});
