/**
 * The README's "Vite + Hono on Node, Bun or Deno" section builds its app alone, and so does its
 * "Cloudflare Workers" section (the same page, its files in the same folder, one install for both). The test reads
 * the section, writes exactly the files it shows (each "`name` (...):" label and the block below)
 * into an empty folder, installs what its install lines name (Parlance's packages from the packed
 * tarballs, the rest at the versions pinned below), type-checks, builds the page with Vite, then
 * starts each runtime's entry file with the command its label gives (the Worker with `wrangler dev`) and drives it over HTTP with a
 * mock Anthropic upstream on 127.0.0.1: a streamed answer, stop (the upstream call is aborted),
 * resume after a lost connection (the exact text), and an approval that runs the tool once.
 * A file, a package or an import the README leaves out fails it. Needs `pnpm build` first.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockProviderServer } from '@parlance/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, packAll } from './pack.ts';
import { chatChecks, freePort, importedPackages, mockUpstream, parlanceTarballs, pinnedVersions, readSection, SECRET, startServer, writeFiles } from './readme-app.ts';
import { exec, scratchApp } from './scratch-app.ts';
import { publishedPackages, repoRoot } from './workspace.ts';

const bin = (name: string) => join(import.meta.dirname, '../node_modules/.bin', name);

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const section = readSection(readme, 'Vite + Hono on Node, Bun or Deno');
// The Workers section serves the Vite section's page: its files go into the same folder, on one install for both.
const workers = readSection(readme, 'Cloudflare Workers: every file');
const installed = { packages: [...new Set([...section.packages, ...workers.packages])], versions: {} };

let out: string;
let app: string;
let packed: PackedPackage[] = [];
let upstream: MockProviderServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  upstream = await mockUpstream();
  out = mkdtempSync(join(tmpdir(), 'parlance-readme-'));
  packed = packAll(publishedPackages(), out);
  // The Parlance packages the install lines name and theirs (the registry has none of this version), the rest pinned.
  app = await scratchApp('readme', parlanceTarballs(packed, installed.packages), pinnedVersions(installed));
  writeFiles(app, { ...section.files, ...workers.files });
  // The page the entry files serve (`npx vite build`, as the section says).
  await exec(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error'], { cwd: app });
}, 300_000);
afterAll(async () => {
  for (const child of children) child.kill();
  await upstream?.close();
  rmSync(out, { recursive: true, force: true });
  if (app) rmSync(app, { recursive: true, force: true });
}, 60_000);

describe('the README app (Vite + Hono on Node, Bun or Deno)', () => {
  it('shows every file it needs and installs every package it imports', () => {
    expect(Object.keys(section.files).sort()).toEqual(['.env', 'app.ts', 'chat.tsx', 'index.html', 'main.tsx', 'server.bun.ts', 'server.deno.ts', 'server.node.ts', 'tsconfig.json', 'vite.config.ts']);
    for (const name of importedPackages(section.files)) expect(section.packages, `${name} is imported but not in the install lines`).toContain(name);
    expect(Object.keys(workers.files).sort()).toEqual(['.dev.vars', 'worker.ts', 'wrangler.jsonc']);
    for (const name of importedPackages(workers.files)) expect(workers.packages, `${name} is imported by worker.ts but not in the Workers install lines`).toContain(name);
  });

  it('type-checks and builds the page with Vite', async () => {
    const tsc = await exec(join(app, 'node_modules/.bin/tsc'), ['-p', app], { cwd: app }).catch((e) => e);
    expect(`${tsc.stdout ?? ''}${tsc.stderr ?? ''}`).toBe('');
    expect(readFileSync(join(app, 'dist/index.html'), 'utf8')).toMatch(/<script type="module"[^>]*src="\/assets\//);
  }, 120_000);

  describe.each([
    ['Node', 'server.node.ts'],
    ['Bun', 'server.bun.ts'],
    ['Deno', 'server.deno.ts'],
    // The section's `npx wrangler dev`, on a free port; the keys come from its .dev.vars, the mock upstream's URL as one more var.
    ['Workers (wrangler dev)', 'worker.ts'],
  ])('on %s', (_runtime, entry) => {
    let url: string;
    beforeAll(async () => {
      const port = await freePort();
      const [command, ...args] = entry === 'worker.ts' ? ['npx', 'wrangler', 'dev', '--ip', '127.0.0.1', '--port', String(port), '--var', `ANTHROPIC_BASE_URL:${upstream.url}`] : section.commands[entry]!.split(' ');
      const resolved = command === 'npx' ? join(app, 'node_modules/.bin', args.shift()!) : bin(command!);
      const env = { ...process.env, PORT: String(port), ANTHROPIC_BASE_URL: upstream.url, ANTHROPIC_API_KEY: 'sk-ant-readme', PARLANCE_SECRET: SECRET, NO_COLOR: '1', WRANGLER_SEND_METRICS: 'false' };
      const server = startServer(resolved, args, { cwd: app, env, ready: /listening on \d+|Ready on http/ });
      children.push(server.child);
      await server.ready;
      url = `http://127.0.0.1:${port}`;
    }, 60_000);

    chatChecks(() => ({ url, api: `${url}/api` }), () => upstream, '<div id="root">');
  });
});
