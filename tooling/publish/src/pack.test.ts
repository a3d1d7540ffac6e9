/**
 * The packages as a user gets them. Every published package is packed (./pack.ts) into a temp
 * dir outside the workspace; each tarball passes publint and @arethetypeswrong/cli (ESM-only
 * profile); then a scratch app installs the tarballs with npm (no workspace, no pnpm), and the
 * README's quick start (apps/quick-start, pasted verbatim in the README) type-checks against them
 * and runs, and each package README's example type-checks: a chat over the packed client, server, engine and testing kit, the Chat component
 * server-rendered with randomness and the clock forbidden, and the `parlance` command.
 * Needs `pnpm build` first (turbo runs it: this task depends on the packages' builds).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage, publishedManifest, type PackedPackage } from './pack.ts';
import { publishedPackages, readManifest, repoRoot } from './workspace.ts';

const exec = promisify(execFile);
const bin = (name: string) => join(import.meta.dirname, '../node_modules/.bin', name);

let out: string;
let packed: PackedPackage[] = [];

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'parlance-pack-'));
  packed = publishedPackages().map((pkg) => packPackage(pkg, out));
}, 180_000);
afterAll(() => rmSync(out, { recursive: true, force: true }), 60_000);

describe('publishedManifest', () => {
  it('drops what only the repo needs and refuses an unresolved workspace range', () => {
    const manifest = {
      name: '@parlance/x',
      version: '1.0.0',
      scripts: { build: 'node ../../scripts/build-package.mjs' },
      parlanceBuild: { platform: 'node' },
      devDependencies: { vitest: '4' },
      exports: { '.': './src/index.ts' },
      publishConfig: { exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } } },
      dependencies: { '@parlance/protocol': '1.0.0' },
    };
    expect(publishedManifest(manifest)).toEqual({
      name: '@parlance/x',
      version: '1.0.0',
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
      dependencies: { '@parlance/protocol': '1.0.0' },
    });
    expect(() => publishedManifest({ ...manifest, dependencies: { '@parlance/protocol': 'workspace:*' } })).toThrow(/workspace:\*/);
  });
});

describe('the packed packages', () => {
  it('are all dev dependencies of this package, so turbo builds them before this test', () => {
    const mine = readManifest(join(import.meta.dirname, '..')).devDependencies ?? {};
    for (const { manifest } of publishedPackages()) expect(mine[manifest.name], manifest.name).toBe('workspace:*');
  });

  it('have clean manifests: engines, repository with its folder, no scripts, no repo-only fields', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(publishedPackages().map((p) => p.manifest.name).sort());
    for (const p of packed) {
      const m = readManifest(p.dir);
      expect(m.engines, p.name).toEqual({ node: readManifest(repoRoot).engines!.node });
      expect(m.repository, p.name).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\//), directory: expect.stringMatching(/^packages\//) });
      for (const field of ['scripts', 'parlanceBuild', 'devDependencies', 'publishConfig']) expect(m[field], `${p.name} ${field}`).toBeUndefined();
      expect(JSON.stringify(m), p.name).not.toMatch(/workspace:|\.\.\/\.\.\/scripts|\.\/src\//);
      expect(m.license).toBe('Apache-2.0');
    }
  });

  it('the CLI, bundled whole, declares no dependencies and imports only Node built-ins', () => {
    const cli = packed.find((p) => p.name === '@parlance/cli')!;
    expect(readManifest(cli.dir).dependencies).toBeUndefined();
    const js = readFileSync(join(cli.dir, 'dist/bin.js'), 'utf8');
    const bare = [...js.matchAll(/\bfrom\s*["']([^"'.][^"']*)["']/g)].map((m) => m[1]!).filter((s) => !s.startsWith('node:'));
    expect(bare).toEqual([]);
  });

  it('pass publint (warnings count)', async () => {
    for (const p of packed) {
      const tarball = readFileSync(p.tarball);
      const { messages, pkg } = await publint({ pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) }, level: 'warning', strict: true });
      expect(messages.map((m) => formatMessage(m, pkg)), p.name).toEqual([]);
    }
  }, 120_000);

  it('pass @arethetypeswrong/cli with the ESM-only profile', async () => {
    // Two at a time: each attw loads TypeScript, which takes most of its time.
    const queue = [...packed];
    const check = async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        const result = await exec(bin('attw'), [p.tarball, '--profile', 'esm-only', '--format', 'ascii'], { env: { ...process.env, NO_COLOR: '1' } }).catch((e) => e);
        expect(result.code ?? 0, `${p.name}\n${result.stdout}${result.stderr}`).toBe(0);
      }
    };
    await Promise.all([check(), check()]);
  }, 300_000);
});

describe('a scratch app installs the tarballs with npm and runs the README', () => {
  let app: string;
  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), 'parlance-scratch-'));
    const deps: Record<string, string> = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
    // What a user adds beside Parlance: the quick start's imports and types. No @tanstack/react-query.
    // AG-UI's packages are optional peers of @parlance/server/ag-ui: installed here so every entry loads.
    Object.assign(deps, { '@ag-ui/core': '1.0.0', '@ag-ui/encoder': '1.0.0', hono: '4.13.19', zod: '4.6.7', react: '19.3.1', 'react-dom': '19.3.1', '@types/react': '19.3.0', '@types/react-dom': '19.3.0', '@types/node': '20.19.43' });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module', dependencies: deps }, null, 2));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', jsx: 'react-jsx', strict: true, outDir: 'out', types: ['node'], lib: ['ES2022', 'DOM', 'DOM.Iterable'] },
        include: ['*.ts', '*.tsx'],
      }),
    );
    for (const file of ['server.ts', 'chat.tsx']) cpSync(join(repoRoot, 'apps/quick-start', file), join(app, file));
    // Each package README's example, as shipped in its tarball, is type-checked too.
    for (const p of packed) {
      const example = /\n## Example\n+```(ts|tsx)\n([\s\S]*?)```/.exec(readFileSync(join(p.dir, 'README.md'), 'utf8'));
      if (example) writeFileSync(join(app, `readme-${p.name.split('/')[1]}.${example[1]}`), `export {};\n${example[2]}`);
    }
    writeFileSync(join(app, 'run.ts'), RUN);
    await exec('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
  }, 300_000);
  afterAll(() => rmSync(app, { recursive: true, force: true }), 60_000);

  it('type-checks the quick start and every package README example against the published types (nodenext resolution)', async () => {
    const result = await exec(bin('tsc'), ['-p', app], { cwd: app }).catch((e) => e);
    expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toBe('');
    expect(readFileSync(join(app, 'out/run.js'), 'utf8')).toContain('ChatStore');
  }, 120_000);

  it('runs it: a chat streams through the packed server, the Chat component prerenders, the CLI decodes', async () => {
    const { stdout } = await exec(process.execPath, [join(app, 'out/run.js')], { cwd: app, env: { ...process.env, PARLANCE_SECRET: 'scratch-app-secret-0123456789abcdef' } });
    const report = JSON.parse(stdout);
    expect(report).toEqual({ answer: 'It is 21°C in Paris.', toolRan: true, prerendered: true });
    const fixture = join(repoRoot, 'packages/dialects/test/fixtures/anthropic_messages/omni__anthropic_text.sse');
    const decoded = await exec(join(app, 'node_modules/.bin/parlance'), ['decode', '--dialect', 'anthropic_messages', fixture]);
    expect(JSON.parse(decoded.stdout)).toMatchObject({ message: { role: 'assistant' } });
  }, 60_000);

  it('require() loads every entry point of every package (Node 20.19+ requires ESM through the default condition)', async () => {
    // All but @parlance/react/query, whose optional peer (@tanstack/react-query) this app purposely lacks.
    const entries = packed
      .flatMap((p) => Object.keys((readManifest(p.dir).exports ?? {}) as Record<string, unknown>).map((sub) => `${p.name}${sub.slice(1)}`))
      .filter((entry) => entry !== '@parlance/react/query');
    expect(entries.length).toBeGreaterThan(packed.length);
    const script = `const out = {}; for (const e of ${JSON.stringify(entries)}) out[e] = Object.keys(require(e)).length; console.log(JSON.stringify(out));`;
    const { stdout } = await exec(process.execPath, ['--no-warnings', '-e', script], { cwd: app });
    const loaded = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(loaded).sort()).toEqual([...entries].sort());
    for (const [entry, count] of Object.entries(loaded)) expect(count, entry).toBeGreaterThan(0);
  }, 60_000);
});

/** The scratch app's program (compiled with the app's tsconfig, run with node). */
const RUN = `import { ChatStore } from '@parlance/client';
import { mockProviderServer } from '@parlance/testing';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { Chat } from './chat.js';
import { app } from './server.js';

const anthropic = mockProviderServer({
  dialect: 'anthropic_messages',
  script: [{ toolCalls: [{ id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] }, { text: 'It is 21°C in Paris.' }],
});
process.env.ANTHROPIC_API_KEY = 'sk-ant-scratch';
globalThis.fetch = async (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  if (url.startsWith('https://api.anthropic.com/')) return anthropic(new Request(url, init));
  return app.fetch(new Request(url, init));
};

const store = new ChatStore({ api: 'http://scratch.local/api' });
store.connect();
await store.send('Weather in Paris?');
const messages = store.getSnapshot().thread.messages;
const last = messages[messages.length - 1];
const answer = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
const toolRan = JSON.stringify(anthropic.requests[1]?.body ?? {}).includes('tempC');

// Server rendering with every source of randomness and time refused, as Next.js prerendering does.
const refuse = () => { throw new Error('impure read during render'); };
crypto.randomUUID = refuse as never;
Math.random = refuse;
Date.now = refuse;
const prerendered = renderToString(createElement(Chat)).includes('aria-label="Message"');
console.log(JSON.stringify({ answer, toolRan, prerendered }));
`;
