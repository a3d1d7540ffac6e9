/**
 * What the README-app tests share (readme-apps.test.ts, readme-frameworks.test.ts): reading a
 * section's files, install lines and commands; installing them beside the packed tarballs; starting
 * the app's server; a mock Anthropic upstream on 127.0.0.1; and the checks every app passes over
 * HTTP: a streamed answer, stop (the upstream call is aborted), resume after a lost connection (the
 * exact text) and an approval that runs the tool once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { ChatStore } from '@parlance/client';
import { type MockProviderServer, serveMockProvider } from '@parlance/testing';
import { expect, it } from 'vitest';
import type { PackedPackage } from './pack.ts';
import { readManifest } from './workspace.ts';

/** What the install lines may name without a version besides Parlance, at the versions the repo tests. */
export const VERSIONS: Record<string, string> = {
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
  // The React Router section (its own packages carry their version in the README).
  isbot: '5.2.3',
};

export interface ReadmeSection {
  files: Record<string, string>;
  /** The command in each file's label ("`server.bun.ts` (`bun server.bun.ts`):"), when it has one. */
  commands: Record<string, string>;
  /** Every package the `npm install` lines name. */
  packages: string[];
  /** The versions the install lines give (`react-router@7.18.4`). */
  versions: Record<string, string>;
  /** The section's shell lines other than `npm install` (`npx create-next-app@16.4.3 chat ...`). */
  setup: string[];
  /** The section's text. */
  text: string;
}

/** The files, commands and installed packages of the README section under `heading`. */
export function readSection(readme: string, heading: string): ReadmeSection {
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
  const versions: Record<string, string> = {};
  const packages = [...text.matchAll(/^npm install (.*)$/gm)].flatMap((m) =>
    m[1]!
      .split(/\s+/)
      .filter((w) => w && !w.startsWith('-'))
      .map((w) => {
        const at = w.lastIndexOf('@');
        if (at <= 0) return w;
        versions[w.slice(0, at)] = w.slice(at + 1);
        return w.slice(0, at);
      }),
  );
  const setup = [...text.matchAll(/^```sh\n([\s\S]*?)```/gm)].flatMap((m) => m[1]!.split('\n')).filter((l) => /^(npx|mkdir|npm (init|pkg))\b/.test(l));
  return { files, commands, packages, versions, setup, text };
}

/** The packages a section's code imports (package names, not subpaths; relative imports left out). */
export const importedPackages = (files: Record<string, string>): string[] => [
  ...new Set(
    Object.entries(files)
      .filter(([name]) => /\.tsx?$/.test(name))
      .flatMap(([, text]) => [...text.matchAll(/from ['"]([^'".][^'"]*)['"]/g)].map((m) => m[1]!.replace(/^(@[^/]+\/[^/]+|[^@/][^/]*).*$/, '$1'))),
  ),
];

/** Writes the files (nested paths too) into `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
}

/** The packed Parlance packages among `names`, and the Parlance packages they depend on. */
export function parlanceTarballs(packed: PackedPackage[], names: string[]): PackedPackage[] {
  const wanted = new Set(names.filter((p) => p.startsWith('@parlance/')));
  for (const name of wanted) for (const dep of Object.keys(readManifest(packed.find((p) => p.name === name)!.dir).dependencies ?? {})) if (dep.startsWith('@parlance/')) wanted.add(dep);
  return packed.filter((p) => wanted.has(p.name));
}

/** The other packages with their versions: the README's own, else {@link VERSIONS}; one with neither throws. */
export function pinnedVersions(section: Pick<ReadmeSection, 'packages' | 'versions'>): Record<string, string> {
  const others = section.packages.filter((p) => !p.startsWith('@parlance/'));
  const unpinned = others.filter((p) => !(p in section.versions) && !(p in VERSIONS));
  if (unpinned.length) throw new Error(`The README installs ${unpinned.join(', ')}: pin a version in VERSIONS`);
  return Object.fromEntries(others.map((p) => [p, section.versions[p] ?? VERSIONS[p]!]));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts a server and resolves once its output matches `ready`; rejects if it exits first. Kill it with `child.kill()`. */
export function startServer(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; ready: RegExp }): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ready = new Promise<void>((resolve, reject) => {
    let output = '';
    const read = (chunk: Buffer) => {
      // The last 64 KB: enough for the ready line and an error to show, bounded for a chatty server.
      output = (output + chunk.toString()).slice(-65_536);
      if (options.ready.test(output)) resolve();
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited (${code}):\n${output}`)));
  });
  return { child, ready };
}

/** 40 words, streamed 100 ms apart by the mock model for a message with "slow". */
export const SLOW = Array.from({ length: 40 }, (_, i) => `word${i} `);
export const SECRET = 'readme-apps-secret-0123456789abcdef0123';

/** The mock model: "slow" streams {@link SLOW}; "book" calls the approval tool, then answers; else a short answer. */
export function mockUpstream(): Promise<MockProviderServer> {
  return serveMockProvider({
    dialect: 'anthropic_messages',
    script: (request) => {
      // The request as Anthropic receives it: the last message's content blocks.
      const last = JSON.stringify((request.body as { messages: unknown[] }).messages.at(-1));
      if (last.includes('"tool_result"')) return { text: 'Your table is booked.' };
      if (last.includes('slow')) return { text: SLOW, delayMs: 100 };
      if (last.includes('book')) return { toolCalls: [{ id: 'toolu_book', name: 'book_table', input: { city: 'Paris' } }] };
      return { text: ['It is ', '21°C in Paris.'] };
    },
  });
}

const answer = (store: ChatStore) =>
  store
    .getSnapshot()
    .thread.messages.filter((m) => m.role === 'assistant')
    .map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''))
    .join('|');

export interface RunningApp {
  /** The server's origin. */
  url: string;
  /** Where the Parlance routes are mounted (the client's `api`), e.g. `${url}/api/chat`. */
  api: string;
}

/**
 * The checks every README app passes, as tests in the calling `describe`: the page (its HTML contains
 * `page`), a streamed answer, stop, resume and an approval. `app()` is read when a test runs.
 */
export function chatChecks(app: () => RunningApp, upstream: () => MockProviderServer, page: string): void {
  it('serves the page and streams an answer', async () => {
    const { url, api } = app();
    expect(await (await fetch(`${url}/`)).text()).toContain(page);
    const store = new ChatStore({ api });
    store.connect();
    await store.send('weather in Paris?');
    expect(answer(store)).toBe('It is 21°C in Paris.');
  }, 30_000);

  it('stops: the upstream call is aborted', async () => {
    const before = upstream().disconnects();
    const store = new ChatStore({ api: app().api });
    store.connect();
    const sent = store.send('slow please');
    for (let i = 0; i < 200 && !answer(store).includes('word1'); i++) await new Promise((r) => setTimeout(r, 25));
    await store.stop();
    await sent;
    for (let i = 0; i < 200 && upstream().disconnects() === before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(upstream().disconnects()).toBeGreaterThan(before);
    expect(answer(store).length).toBeLessThan(SLOW.join('').length);
  }, 30_000);

  it('resumes after a lost connection from the last event it read, to the exact text', async () => {
    const { api } = app();
    const body = { clientRequestId: `resume-${api}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'slow please' }] }] };
    const lost = new AbortController();
    const first = await fetch(`${api}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: lost.signal });
    const runId = first.headers.get('x-parlance-run-id')!;
    const before = await readText(first, (t) => t.includes('word2'), lost);
    const rest = await fetch(`${api}/runs/${runId}/events`, { headers: { 'last-event-id': before.lastId } });
    const after = await readText(rest, () => false);
    expect(before.text + after.text).toBe(SLOW.join(''));
  }, 30_000);

  it('pauses for approval, runs the tool once after Approve, and answers', async () => {
    const store = new ChatStore({ api: app().api });
    store.connect();
    await store.send('book a table in Paris');
    const pending = store.getSnapshot().pending.filter((p) => p.kind === 'approval');
    expect(pending.map((p) => p.name)).toEqual(['book_table']);
    await store.approve(pending[0]!.toolCallId);
    await store.idle();
    expect(answer(store)).toContain('Your table is booked.');
    const results = upstream().requests.filter((r) => JSON.stringify(r.body).includes('Booked in Paris'));
    expect(results.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(results.at(-1)!.body).split('Booked in Paris').length - 1).toBe(1);
  }, 30_000);
}

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
