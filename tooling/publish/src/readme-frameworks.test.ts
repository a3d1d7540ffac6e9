/**
 * The README's "Next.js (App Router)" and "React Router 7" sections build their apps alone. For each,
 * the test runs the section's setup lines in an empty folder (`npx create-next-app@16.4.3 chat ...`,
 * or `mkdir chat && ... npm pkg set type=module`; create-next-app with `--skip-install`, as the one
 * install comes next), installs what its install lines name (Parlance's packages from the packed
 * tarballs, the framework at the README's versions, the rest at the versions readme-app.ts pins;
 * with pnpm, linked from the repo's store: see installWithPnpm),
 * writes exactly the files the section shows, builds with the section's build command and starts
 * its server command, then drives the built app over HTTP with a mock Anthropic upstream on
 * 127.0.0.1 (readme-app.ts: stream, stop with the upstream aborted, exact resume, approval once).
 * A file, a package or an import the README leaves out fails it. Needs `pnpm build` first.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockProviderServer } from '@parlance/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, packAll } from './pack.ts';
import { chatChecks, freePort, importedPackages, mockUpstream, parlanceTarballs, pinnedVersions, type ReadmeSection, readSection, SECRET, startServer, writeFiles } from './readme-app.ts';
import { exec, installWithPnpm } from './scratch-app.ts';
import { publishedPackages, readManifest, repoRoot } from './workspace.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

let out: string;
let packed: PackedPackage[] = [];
let upstream: MockProviderServer;
const children: ChildProcess[] = [];
const folders: string[] = [];

beforeAll(async () => {
  upstream = await mockUpstream();
  out = mkdtempSync(join(tmpdir(), 'parlance-readme-fw-'));
  packed = packAll(publishedPackages(), out);
}, 120_000);
afterAll(async () => {
  for (const child of children) child.kill();
  await upstream?.close();
  for (const dir of [out, ...folders]) if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** "`npx next build && npx next start` serves it": the section's build and start commands. */
function buildAndStart(section: ReadmeSection): { build: string; start: string } {
  const m = /`npx ([^`]+?) && ([^`]+)` serves it/.exec(section.text);
  if (!m) throw new Error('The section names no "`npx <build> && <start>` serves it" line');
  return { build: m[1]!, start: m[2]! };
}

/** A command line as the section writes it, run from the app: `npx x` is the app's own `x`, `node` this Node. */
function resolveCommand(app: string, line: string): [string, string[]] {
  const [first, ...args] = line.split(' ');
  if (first === 'npx') return [join(app, 'node_modules/.bin', args.shift()!), args];
  return [first === 'node' ? process.execPath : first!, args];
}

describe.each([
  {
    framework: 'Next.js',
    heading: 'Next.js (App Router)',
    files: ['.env.local', 'app/api/chat/[...path]/route.ts', 'app/chat.tsx', 'app/page.tsx', 'lib/parlance.ts'],
    page: 'Parlance on Next.js',
    // next start binds every interface unless told: the test's servers listen on 127.0.0.1 only.
    startArgs: ['-H', '127.0.0.1'],
    ready: /Ready in/,
  },
  {
    framework: 'React Router',
    heading: 'React Router 7 (framework mode)',
    files: ['app/chat.tsx', 'app/parlance.server.ts', 'app/root.tsx', 'app/routes.ts', 'app/routes/api.chat.ts', 'app/routes/home.tsx', 'react-router.config.ts', 'vite.config.ts'],
    page: 'Parlance on React Router',
    startArgs: [],
    ready: /\[react-router-serve\] http/,
  },
])('the README app ($framework)', ({ heading, files, page, startArgs, ready }) => {
  const section = readSection(readme, heading);
  let app: string;
  let url: string;
  /** What the setup lines' generator put in package.json (create-next-app: next, react). */
  let generated: string[] = [];
  let buildOutput = '';

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'parlance-readme-fw-app-'));
    folders.push(root);
    // The section's setup lines as written; create-next-app without its own install (the one install is next).
    // npx asks before it installs create-next-app, and a machine's npmrc may answer no (`yes=false`, as these
    // machines' do: "npx canceled due to missing packages"): the test answers yes, as a user at the prompt does.
    const setupEnv = { ...process.env, CI: 'true', npm_config_yes: 'true' };
    for (const line of section.setup) await exec('sh', ['-c', line.replace(/create-next-app@\S+ \S+/, '$& --skip-install --disable-git')], { cwd: root, env: setupEnv });
    const made = readdirSync(root);
    expect(made, 'the setup lines make one app folder').toHaveLength(1);
    app = join(root, made[0]!);
    generated = Object.keys(readManifest(app).dependencies ?? {});
    await installWithPnpm(app, parlanceTarballs(packed, section.packages), pinnedVersions(section));
    writeFiles(app, section.files);
    const { build, start } = buildAndStart(section);
    const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NO_COLOR: '1' };
    const built = await exec(...resolveCommand(app, `npx ${build}`), { cwd: app, env });
    buildOutput = built.stdout + built.stderr;
    const port = await freePort();
    const [command, args] = resolveCommand(app, start);
    // The keys as the host's environment gives them (they win over .env and .env.local), the upstream the mock.
    const serverEnv = { ...env, PORT: String(port), HOST: '127.0.0.1', ANTHROPIC_BASE_URL: upstream.url, ANTHROPIC_API_KEY: 'sk-ant-readme', PARLANCE_SECRET: SECRET };
    const server = startServer(command, [...args, ...startArgs], { cwd: app, env: serverEnv, ready });
    children.push(server.child);
    await server.ready;
    url = `http://127.0.0.1:${port}`;
  }, 300_000);

  it('shows every file it needs and installs every package it imports', () => {
    expect(Object.keys(section.files).sort()).toEqual(files);
    const installed = [...section.packages, ...generated];
    for (const name of importedPackages(section.files).filter((n) => !n.startsWith('@/'))) expect(installed, `${name} is imported but not installed`).toContain(name);
  });

  it('builds without a warning the README could have avoided', () => {
    // React Router's v8 flags are in the section's config; React Router 7.18.4's own `envFile` deprecation
    // under Vite 8 is not the app's to fix (the repo patches it: patches/@react-router__dev@7.18.4.patch).
    expect(buildOutput).not.toMatch(/Future Flag Warning|AI SDK Warning|wasn't found on the file system/);
  });

  chatChecks(() => ({ url, api: `${url}/api/chat` }), () => upstream, page);
});
