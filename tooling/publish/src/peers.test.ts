/**
 * Installs next to what apps already have. The optional and required peers of the published
 * packages are ranges; for each, two scratch apps install the packed tarballs with npm (no
 * `--legacy-peer-deps`: an excluded version fails with ERESOLVE) next to the OLDEST version of
 * every range (its `semver.minVersion`) and the NEWEST (pinned below, checked to be inside the range).
 * Each app then type-checks a program against the installed types and runs it: a chat through
 * `createParlanceApp` on Hono with the Redis run store over the app's `ioredis` (a real
 * redis-server), the same chat through the AI SDK route read by the app's own `ai`
 * (DefaultChatTransport + readUIMessageStream), `zod/mini` tool input, and `useChat` server-rendered by
 * the app's React. Needs `pnpm build` first and /usr/bin/redis-server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, packAll } from './pack.ts';
import { exec, scratchApp } from './scratch-app.ts';
import { publishedPackages } from './workspace.ts';

/** The newest release of each peer range (update when a new major joins a range). */
const NEWEST: Record<string, string> = { ai: '7.0.173', ioredis: '6.0.0', hono: '4.13.19', zod: '4.6.7', react: '19.3.1' };
/** Packages that follow a peer's version (react-dom follows react). */
const COMPANIONS = (peer: string, version: string): Record<string, string> =>
  peer === 'react' ? { 'react-dom': version, '@types/react': semver.major(version) === 18 ? '18.3.0' : '19.3.0', '@types/react-dom': semver.major(version) === 18 ? '18.3.0' : '19.3.0' } : {};

/** Every peer range the published packages declare, by peer name (one range per peer across packages). */
function peerRanges(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { manifest } of publishedPackages()) {
    for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) {
      if (name.startsWith('@ag-ui/') || name === '@tanstack/react-query') continue; // one release line each, tested by their own suites
      if (out[name] !== undefined && out[name] !== range) throw new Error(`${name}: two ranges (${out[name]}, ${range})`);
      out[name] = range;
    }
  }
  return out;
}

function versions(which: 'oldest' | 'newest'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [peer, range] of Object.entries(peerRanges())) {
    const version = which === 'oldest' ? semver.minVersion(range)!.version : NEWEST[peer]!;
    Object.assign(out, { [peer]: version }, COMPANIONS(peer, version));
  }
  return { ...out, '@types/node': '20.19.43', typescript: '7.0.2' };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let out: string;
let packed: PackedPackage[] = [];
let redis: ChildProcess;
let redisPort: number;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'parlance-peers-'));
  packed = packAll(publishedPackages(), out);
  redisPort = await freePort();
  redis = spawn(process.env.REDIS_SERVER ?? '/usr/bin/redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
}, 120_000);
afterAll(() => {
  redis?.kill();
  rmSync(out, { recursive: true, force: true });
}, 60_000);

describe('peer ranges', () => {
  it('cover every supported major of ai, ioredis, React, Hono and zod, and the newest pinned here is inside each', () => {
    const ranges = peerRanges();
    expect(ranges).toEqual({ ai: '^6.0.0 || ^7.0.0', ioredis: '^5.0.4 || ^6.0.0', react: '^18.3.0 || ^19.0.0', hono: '^4.6.0', zod: '^4.1.8' });
    for (const [peer, range] of Object.entries(ranges)) expect(semver.satisfies(NEWEST[peer]!, range), `${peer}@${NEWEST[peer]} in ${range}`).toBe(true);
  });
});

describe.each(['oldest', 'newest'] as const)('an app with the %s version of every peer', (which) => {
  let app: string;
  beforeAll(async () => {
    app = await scratchApp(`peers-${which}`, packed, versions(which));
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'preserve', moduleResolution: 'bundler', strict: true, skipLibCheck: true, outDir: 'out', types: ['node'], lib: ['ES2022', 'DOM', 'DOM.Iterable'] }, include: ['run.ts'] }));
    writeFileSync(join(app, 'run.ts'), RUN);
  }, 300_000);
  afterAll(() => rmSync(app, { recursive: true, force: true }), 60_000);

  it('installs the tarballs with npm (no ERESOLVE) and gets the asked versions, one copy each', () => {
    for (const [name, version] of Object.entries(versions(which))) {
      expect(JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')).version, name).toBe(version);
    }
  });

  it('type-checks against the installed types and runs: Redis store, the AI SDK route read by ai, useChat rendered by React', async () => {
    const tsc = await exec(join(app, 'node_modules/.bin/tsc'), ['-p', app], { cwd: app }).catch((e) => e);
    expect(`${tsc.stdout ?? ''}${tsc.stderr ?? ''}`).toBe('');
    const { stdout } = await exec(process.execPath, [join(app, 'out/run.js')], { cwd: app, env: { ...process.env, REDIS_PORT: String(redisPort) } });
    expect(JSON.parse(stdout)).toEqual({ parlance: 'It is 21°C in Paris.', aiSdk: 'Hello from the AI SDK route.', storedEvents: true, rendered: true, react: which === 'oldest' ? 18 : 19 });
  }, 120_000);
});

/** The scratch app's program (compiled with its tsconfig, run with node). */
const RUN = `import { ChatStore } from '@parlance/client';
import { tool } from '@parlance/engine';
import { useChat } from '@parlance/react';
import { catalogModels, createParlanceApp, engineRunner } from '@parlance/server';
import { createAiSdkRoutes, type ParlanceUiMetadata } from '@parlance/server/frontends';
import { createRedisRunStore } from '@parlance/server/redis';
import { mockProviderServer } from '@parlance/testing';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { Hono } from 'hono';
import Redis from 'ioredis';
import { createElement, version } from 'react';
import { renderToString } from 'react-dom/server';
import * as z from 'zod/mini';

const input = z.object({ city: z.string() });
const weather = tool({ name: 'weather', input, jsonSchema: z.toJSONSchema(input), execute: async ({ city }) => ({ city, tempC: 21 }) });
const upstream = mockProviderServer({
  dialect: 'anthropic_messages',
  script: [{ toolCalls: [{ id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] }, { text: 'It is 21°C in Paris.' }, { text: 'Hello from the AI SDK route.' }],
});
process.env.ANTHROPIC_API_KEY = 'sk-ant-scratch';
process.env.PARLANCE_SECRET = 'peers-app-secret-0123456789abcdef0123';

const redis = new Redis(Number(process.env.REDIS_PORT), '127.0.0.1', { maxRetriesPerRequest: 2 });
const store = createRedisRunStore({ redis, prefix: 'peers-' + Math.random().toString(36).slice(2) + ':' });
const options = { models: catalogModels(['anthropic:claude-sonnet-4-5']), run: engineRunner({ engine: { tools: [weather] } }), store };
const app = new Hono().route('/api', createParlanceApp(options)).route('/api/ui', createAiSdkRoutes(options));
const appFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = String(input instanceof Request ? input.url : input);
  if (url.startsWith('https://api.anthropic.com/')) return upstream(new Request(url, init));
  return app.fetch(new Request(url, init));
}) as typeof fetch;
globalThis.fetch = appFetch;

const chat = new ChatStore({ api: 'http://app.local/api' });
chat.connect();
await chat.send('Weather in Paris?');
const last = chat.getSnapshot().thread.messages.at(-1);
const parlance = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
const storedEvents = (await redis.keys('peers-*')).length > 0;

type Ui = UIMessage<ParlanceUiMetadata>;
const transport = new DefaultChatTransport<Ui>({ api: 'http://app.local/api/ui', fetch: appFetch });
const stream = await transport.sendMessages({ chatId: 'c1', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }], trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
let message: Ui | undefined;
for await (const m of readUIMessageStream<Ui>({ stream })) message = m;
const aiSdk = message?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

function Page() {
  const { messages } = useChat({ api: '/api' });
  return createElement('p', null, 'messages: ' + messages.length);
}
const rendered = renderToString(createElement(Page)).includes('messages: 0');
await store.close();
redis.disconnect();
console.log(JSON.stringify({ parlance, aiSdk, storedEvents, rendered, react: Number(version.split('.')[0]) }));
`;
