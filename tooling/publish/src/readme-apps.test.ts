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
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatStore } from '@parlance/client';
import { type MockProviderServer, serveMockProvider } from '@parlance/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, packAll } from './pack.ts';
import { exec, scratchApp } from './scratch-app.ts';
import { publishedPackages, readManifest, repoRoot } from './workspace.ts';

/** What the install lines may name besides Parlance, at the versions the repo tests. */
const VERSIONS: Record<string, string> = {
  hono: '4.13.19',
  zod: '4.6.7',
  react: '19.3.1',
  'react-dom': '19.3.1',
  '@hono/node-server': '2.1.8',
  vite: '8.3.8',
  '@vitejs/plugin-react': '6.3.0',
  typescript: '7.0.2',
  tsx: '4.23.15',
  '@types/node': '20.19.43',
  '@types/react': '19.3.0',
  '@types/react-dom': '19.3.0',
  // The Workers section: the repo's wrangler (4.87+ needs Node 22 for its CLI) and workers types.
  wrangler: '4.86.0',
  '@cloudflare/workers-types': '4.20260702.1',
};
const bin = (name: string) => join(import.meta.dirname, '../node_modules/.bin', name);

interface ReadmeSection {
  files: Record<string, string>;
  /** The command in each file's label ("`server.bun.ts` (`bun server.bun.ts`):"), when it has one. */
  commands: Record<string, string>;
  packages: string[];
}

/** The files, run commands and installed packages of the README section under `heading`. */
function readSection(readme: string, heading: string): ReadmeSection {
  const start = readme.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  const files: Record<string, string> = {};
  const commands: Record<string, string> = {};
  for (const m of text.matchAll(/^`([^`\s]+)`( \([^\n]*\))?:\n\n```\w*\n([\s\S]*?)```/gm)) {
    files[m[1]!] = m[3]!;
    const command = m[2] && /\(`([^`]+)`/.exec(m[2])?.[1];
    if (command) commands[m[1]!] = command;
  }
  const packages = [...text.matchAll(/^npm install (.*)$/gm)].flatMap((m) => m[1]!.split(/\s+/).filter((w) => w && !w.startsWith('-')));
  return { files, commands, packages };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const section = readSection(readme, 'Vite + Hono on Node, Bun or Deno');
// The Workers section serves the Vite section's page: its files go into the same folder, on one install for both.
const workers = readSection(readme, 'Cloudflare Workers: every file');
const installed = [...new Set([...section.packages, ...workers.packages])];
const SECRET = 'readme-apps-secret-0123456789abcdef0123';
const SLOW = Array.from({ length: 40 }, (_, i) => `word${i} `);

let out: string;
let app: string;
let packed: PackedPackage[] = [];
let upstream: MockProviderServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // The mock model: "slow" streams 40 words 100 ms apart; "book" calls the approval tool, then answers; else a short answer.
  upstream = await serveMockProvider({
    dialect: 'anthropic_messages',
    script: (request) => {
      // The request as Anthropic receives it: the last message's content blocks.
      const last = JSON.stringify((request.body as { messages: unknown[] }).messages.at(-1));
      const text = last;
      if (last.includes('"tool_result"')) return { text: 'Your table is booked.' };
      if (text.includes('slow')) return { text: SLOW, delayMs: 100 };
      if (text.includes('book')) return { toolCalls: [{ id: 'toolu_book', name: 'book_table', input: { city: 'Paris' } }] };
      return { text: ['It is ', '21°C in Paris.'] };
    },
  });
  out = mkdtempSync(join(tmpdir(), 'parlance-readme-'));
  packed = packAll(publishedPackages(), out);
  // The Parlance packages the install lines name, and theirs (the registry has none of this version).
  const names = new Set(installed.filter((p) => p.startsWith('@parlance/')));
  for (const name of names) for (const dep of Object.keys(readManifest(packed.find((p) => p.name === name)!.dir).dependencies ?? {})) if (dep.startsWith('@parlance/')) names.add(dep);
  const others = installed.filter((p) => !p.startsWith('@parlance/'));
  const unpinned = others.filter((p) => !(p in VERSIONS));
  if (unpinned.length) throw new Error(`The README installs ${unpinned.join(', ')}: pin a version in VERSIONS`);
  app = await scratchApp('readme', packed.filter((p) => names.has(p.name)), Object.fromEntries(others.map((p) => [p, VERSIONS[p]!])));
  for (const [name, content] of Object.entries({ ...section.files, ...workers.files })) writeFileSync(join(app, name), content);
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
    const code = Object.entries(section.files).filter(([name]) => /\.tsx?$/.test(name));
    const imported = new Set(code.flatMap(([, text]) => [...text.matchAll(/from '([^'.][^']*)'/g)].map((m) => m[1]!.replace(/^(@[^/]+\/[^/]+|[^@/][^/]*).*$/, '$1'))));
    for (const name of imported) expect(section.packages, `${name} is imported but not in the install lines`).toContain(name);
    expect(Object.keys(workers.files).sort()).toEqual(['.dev.vars', 'worker.ts', 'wrangler.jsonc']);
    const workerImports = [...workers.files['worker.ts']!.matchAll(/from '([^'.][^']*)'/g)].map((m) => m[1]!.replace(/^(@[^/]+\/[^/]+|[^@/][^/]*).*$/, '$1'));
    for (const name of workerImports) expect(workers.packages, `${name} is imported by worker.ts but not in the Workers install lines`).toContain(name);
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
      const child = spawn(resolved, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      url = await new Promise((resolve, reject) => {
        let output = '';
        const read = (chunk: Buffer) => {
          output += chunk.toString();
          if (/listening on \d+|Ready on http/.test(output)) resolve(`http://127.0.0.1:${port}`);
        };
        child.stdout!.on('data', read);
        child.stderr!.on('data', read);
        child.on('exit', (code) => reject(new Error(`${entry} exited (${code}):\n${output}`)));
      });
    }, 60_000);

    const text = (store: ChatStore) =>
      store
        .getSnapshot()
        .thread.messages.filter((m) => m.role === 'assistant')
        .map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''))
        .join('|');

    it('serves the page and streams an answer', async () => {
      expect(await (await fetch(`${url}/`)).text()).toContain('<div id="root">');
      const store = new ChatStore({ api: `${url}/api` });
      store.connect();
      await store.send('weather in Paris?');
      expect(text(store)).toBe('It is 21°C in Paris.');
    }, 30_000);

    it('stops: the upstream call is aborted', async () => {
      const before = upstream.disconnects();
      const store = new ChatStore({ api: `${url}/api` });
      store.connect();
      const sent = store.send('slow please');
      for (let i = 0; i < 200 && !text(store).includes('word1'); i++) await new Promise((r) => setTimeout(r, 25));
      await store.stop();
      await sent;
      for (let i = 0; i < 200 && upstream.disconnects() === before; i++) await new Promise((r) => setTimeout(r, 25));
      expect(upstream.disconnects()).toBeGreaterThan(before);
      expect(text(store).length).toBeLessThan(SLOW.join('').length);
    }, 30_000);

    it('resumes after a lost connection from the last event it read, to the exact text', async () => {
      const body = { clientRequestId: `resume-${entry}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'slow please' }] }] };
      const lost = new AbortController();
      const first = await fetch(`${url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: lost.signal });
      const runId = first.headers.get('x-parlance-run-id')!;
      const before = await readText(first, (t) => t.includes('word2'), lost);
      const rest = await fetch(`${url}/api/runs/${runId}/events`, { headers: { 'last-event-id': before.lastId } });
      const after = await readText(rest, () => false);
      expect(before.text + after.text).toBe(SLOW.join(''));
    }, 30_000);

    it('pauses for approval, runs the tool once after Approve, and answers', async () => {
      const store = new ChatStore({ api: `${url}/api` });
      store.connect();
      await store.send('book a table in Paris');
      const pending = store.getSnapshot().pending.filter((p) => p.kind === 'approval') ?? [];
      expect(pending.map((p) => p.name)).toEqual(['book_table']);
      await store.approve(pending[0]!.toolCallId);
      await store.idle();
      expect(text(store)).toContain('Your table is booked.');
      const results = upstream.requests.filter((r) => JSON.stringify(r.body).includes('Booked in Paris'));
      expect(results.length).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(results.at(-1)!.body).split('Booked in Paris').length - 1).toBe(1);
    }, 30_000);
  });
});

/**
 * Reads an SSE response's text deltas, with the id of the last event read (deltas without an id
 * follow the previous frame's), until `enough` says so (then aborts the connection) or the end.
 */
async function readText(response: Response, enough: (text: string) => boolean, abort?: AbortController): Promise<{ text: string; lastId: string }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let lastId = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text, lastId };
    buffer += decoder.decode(value, { stream: true });
    for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!data) continue;
      lastId = id ?? String(Number(lastId) + 1);
      const event = JSON.parse(data) as { type: string; delta?: string };
      if (event.type === 'text-delta') text += event.delta;
      if (enough(text)) {
        abort?.abort();
        return { text, lastId };
      }
    }
  }
}
