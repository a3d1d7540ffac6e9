/**
 * Parlance's gateway beside Portkey's open-source gateway (`@portkey-ai/gateway`, its Node build),
 * on the same mock upstreams, the same requests, one at a time.
 *
 *   direct:   client ──HTTP──> mock upstream
 *   parlance: client ──HTTP──> Parlance gateway process ──HTTP──> mock upstream
 *   portkey:  client ──HTTP──> Portkey gateway process  ──HTTP──> mock upstream
 *
 * Each gateway runs in a process of its own, forked with the same CPU preload (cpu-preload.mjs) and
 * `--expose-gc`, so its CPU is all its own (the client and the mocks live in this process). The caller
 * speaks OpenAI Chat Completions (Portkey's unified API) to an OpenAI upstream (same format) and to an
 * Anthropic Messages upstream (translated), streamed (DELTAS text deltas, the usage chunk asked for)
 * and not. Each case first warms both gateways up, then runs ROUNDS rounds; a round sends each system
 * its requests back to back, rotating which system goes first.
 *
 * What a cell means:
 * - gateway CPU: the gateway process's user + system CPU time (everything it does: its HTTP server,
 *   its own HTTP client to the upstream, parsing, translating, garbage collection) over one round's
 *   requests, divided by the deltas (streamed) or the calls (not streamed) of that round; the median
 *   over the rounds. The process collects its garbage fully before each reading (cpu-preload.mjs), so
 *   a round pays for the garbage it made and none of the round before.
 * - added TTFB / added total: the median over the rounds of each round's p50 time to the first byte
 *   (to the last byte) the client reads through the gateway, minus the same for calling the upstream
 *   directly.
 * Non-streamed calls are short (a few ms each), so their rounds hold more requests (WHOLE_REQUESTS)
 * after a longer warm-up (WHOLE_WARMUP): the JIT needs some hundreds of calls to settle a code path,
 * and a round of 20 calls read one CPU figure over ~60 ms, where a single collection or a
 * scheduler tick swung the cell by ±20%.
 *
 * Run: `pnpm --filter @parlance/bench bench:gateway` (also the end of `pnpm bench` here).
 * Knobs: BENCH_DELTAS (200), BENCH_REQUESTS (20 streamed requests per system and round),
 * BENCH_WHOLE_REQUESTS (200 non-streamed), BENCH_WARMUP (10 streamed), BENCH_WHOLE_WARMUP (300),
 * BENCH_ROUNDS (5), BENCH_ONLY (`streamed` or `whole`: only those rows).
 * Exits non-zero only when the bench breaks (a wrong answer, a gateway that does not start), never because of a timing.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { type DialectId, getDialect } from '@parlance/dialects';
import { type MockProviderServer, type ScriptedTurn, serveMockProvider } from '@parlance/testing';
import { median } from './stats.ts';

const DELTAS = Number(process.env.BENCH_DELTAS ?? 200);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);
const WHOLE_REQUESTS = Number(process.env.BENCH_WHOLE_REQUESTS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const WHOLE_WARMUP = Number(process.env.BENCH_WHOLE_WARMUP ?? 300);
/** `streamed` or `whole`: only those cases (default: all four). */
const ONLY = process.env.BENCH_ONLY;
const KEY = 'sk-bench-gateway-key';
const TURN: ScriptedTurn = { text: Array.from({ length: DELTAS }, (_, i) => `word${i} `), usage: { inputTokens: 10, outputTokens: DELTAS } };
const LAST_WORD = `word${DELTAS - 1}`;

type System = 'direct' | 'parlance' | 'portkey';
const SYSTEMS: System[] = ['direct', 'parlance', 'portkey'];

interface Gateway {
  url: string;
  child: ChildProcess;
  cpu(): Promise<number>;
}

const preload = new URL('./cpu-preload.mjs', import.meta.url).pathname;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function cpuOf(child: ChildProcess): () => Promise<number> {
  return () =>
    new Promise((resolve) => {
      const onMessage = (message: { type?: string; micros?: number }) => {
        if (message.type !== 'cpu') return;
        child.off('message', onMessage);
        resolve(message.micros!);
      };
      child.on('message', onMessage);
      child.send({ type: 'cpu' });
    });
}

async function startParlance(mocks: Record<'openai' | 'anthropic', string>): Promise<Gateway> {
  const child = fork(new URL('./gateway-process.ts', import.meta.url).pathname, {
    execArgv: ['--expose-gc', '--import', 'tsx', '--import', preload],
    env: { ...process.env, MOCK_OPENAI: mocks.openai, MOCK_ANTHROPIC: mocks.anthropic },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (message: { type?: string; port?: number }) => message.type === 'ready' && resolve(message.port!));
    child.once('exit', (code) => reject(new Error(`Parlance's gateway process exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, cpu: cpuOf(child) };
}

/** Portkey's Node server (`build/start-server.js --port=N --headless`), as its README starts it. */
async function startPortkey(): Promise<Gateway> {
  const entry = createRequire(import.meta.url).resolve('@portkey-ai/gateway/build/start-server.js');
  const port = await freePort();
  const child = fork(entry, [`--port=${port}`, '--headless'], { execArgv: ['--expose-gc', '--import', preload], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const url = `http://127.0.0.1:${port}`;
  // It prints its banner after a 1 s spinner; ready when it answers.
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`Portkey's gateway exited (${child.exitCode})`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) break;
    if (attempt > 150) throw new Error("Portkey's gateway did not answer within 30 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, child, cpu: cpuOf(child) };
}

interface Case {
  label: string;
  upstream: 'openai' | 'anthropic';
  stream: boolean;
}

const CASES: Case[] = [
  { label: 'OpenAI chat -> OpenAI (same format)', upstream: 'openai', stream: true },
  { label: 'OpenAI chat -> Anthropic (translated)', upstream: 'anthropic', stream: true },
  { label: 'OpenAI chat -> OpenAI (same format)', upstream: 'openai', stream: false },
  { label: 'OpenAI chat -> Anthropic (translated)', upstream: 'anthropic', stream: false },
];

const DIALECT: Record<Case['upstream'], DialectId> = { openai: 'openai_completions', anthropic: 'anthropic_messages' };

function request(system: System, c: Case, urls: Record<System, string>, mocks: Record<Case['upstream'], string>): () => Promise<Response> {
  // A streamed caller asks for the usage chunk (as the direct call does, and as a caller counting its
  // spend does): Parlance then forwards a same-format stream's bytes unchanged.
  const usage = c.stream ? { stream_options: { include_usage: true } } : {};
  const caller = { model: c.upstream, stream: c.stream, ...usage, max_tokens: 1000, messages: [{ role: 'user', content: 'hi' }] };
  let url: string;
  let body: unknown = caller;
  let headers: Record<string, string> = { 'content-type': 'application/json' };
  if (system === 'direct') {
    const dialect = getDialect(DIALECT[c.upstream]);
    url = `${mocks[c.upstream]}/v1${dialect.path('m', { stream: c.stream })}`;
    body = dialect.encodeRequest({ model: 'm', maxOutputTokens: 1000, messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }, { stream: c.stream });
    headers = { ...headers, authorization: 'Bearer k', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
  } else if (system === 'parlance') {
    url = `${urls.parlance}/v1/chat/completions`;
    headers = { ...headers, authorization: `Bearer ${KEY}` };
  } else {
    // Portkey: the provider and the upstream's host by header, the provider key as the bearer token.
    url = `${urls.portkey}/v1/chat/completions`;
    body = { ...caller, model: 'm' };
    headers = { ...headers, authorization: 'Bearer k', 'x-portkey-provider': c.upstream, 'x-portkey-custom-host': `${mocks[c.upstream]}/v1` };
  }
  const text = JSON.stringify(body);
  return () => fetch(url, { method: 'POST', headers, body: text });
}

interface Sample {
  ttfb: number;
  total: number;
}

async function once(send: () => Promise<Response>): Promise<Sample> {
  const start = performance.now();
  const response = await send();
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let ttfb = Number.NaN;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (Number.isNaN(ttfb)) ttfb = performance.now() - start;
    text += decoder.decode(value, { stream: true });
  }
  const total = performance.now() - start;
  if (response.status !== 200 || !text.includes(LAST_WORD)) throw new Error(`A wrong answer (HTTP ${response.status}): ${text.slice(0, 300)}`);
  return { ttfb, total };
}

async function main(): Promise<void> {
  const mockServers: Record<Case['upstream'], MockProviderServer> = {
    openai: await serveMockProvider({ dialect: 'openai_completions', script: () => TURN }),
    anthropic: await serveMockProvider({ dialect: 'anthropic_messages', script: () => TURN }),
  };
  const mocks = { openai: mockServers.openai.url, anthropic: mockServers.anthropic.url };
  const gateways: Record<'parlance' | 'portkey', Gateway> = { parlance: await startParlance(mocks), portkey: await startPortkey() };
  const urls: Record<System, string> = { direct: '', parlance: gateways.parlance.url, portkey: gateways.portkey.url };
  const version = (createRequire(import.meta.url)('@portkey-ai/gateway/package.json') as { version: string }).version;
  console.log(
    `Gateway beside Portkey (@portkey-ai/gateway ${version}): ${DELTAS} deltas a streamed answer; sequential requests per system and round: ${REQUESTS} streamed (after ${WARMUP} warm-up), ${WHOLE_REQUESTS} not streamed (after ${WHOLE_WARMUP}); ${ROUNDS} rounds; Node ${process.version}; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`,
  );
  const rows = [['caller -> upstream', 'stream', 'gateway CPU parlance / portkey', 'added TTFB p50 parlance / portkey', 'added total p50 parlance / portkey']];
  try {
    for (const c of CASES.filter((c) => ONLY === undefined || (ONLY === 'streamed') === c.stream)) {
      const sends = Object.fromEntries(SYSTEMS.map((s) => [s, request(s, c, urls, mocks)])) as Record<System, () => Promise<Response>>;
      const requests = c.stream ? REQUESTS : WHOLE_REQUESTS;
      const warmup = c.stream ? WARMUP : WHOLE_WARMUP;
      for (const system of SYSTEMS) for (let i = 0; i < warmup; i++) await once(sends[system]);
      const cpu: Record<'parlance' | 'portkey', number[]> = { parlance: [], portkey: [] };
      const ttfb: Record<System, number[]> = { direct: [], parlance: [], portkey: [] };
      const total: Record<System, number[]> = { direct: [], parlance: [], portkey: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = SYSTEMS.map((_, i) => SYSTEMS[(i + round) % SYSTEMS.length]!);
        for (const system of order) {
          const before = system === 'direct' ? 0 : await gateways[system].cpu();
          const samples: Sample[] = [];
          for (let i = 0; i < requests; i++) samples.push(await once(sends[system]));
          if (system !== 'direct') cpu[system].push((await gateways[system].cpu()) - before);
          ttfb[system].push(median(samples.map((s) => s.ttfb)));
          total[system].push(median(samples.map((s) => s.total)));
        }
      }
      const unit = c.stream ? requests * DELTAS : requests;
      const cpuCell = (s: 'parlance' | 'portkey') => (median(cpu[s]) / unit).toFixed(c.stream ? 1 : 0);
      const added = (series: Record<System, number[]>, s: 'parlance' | 'portkey') => (median(series[s]) - median(series.direct)).toFixed(2);
      rows.push([
        c.label,
        c.stream ? 'yes' : 'no',
        `${cpuCell('parlance')} / ${cpuCell('portkey')} µs per ${c.stream ? 'delta' : 'call'}`,
        `${added(ttfb, 'parlance')} / ${added(ttfb, 'portkey')} ms`,
        `${added(total, 'parlance')} / ${added(total, 'portkey')} ms`,
      ]);
    }
  } finally {
    for (const gateway of Object.values(gateways)) gateway.child.kill();
    await Promise.all(Object.values(mockServers).map((mock) => mock.close()));
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) console.log(`| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`);
  console.log(`\nLoad average at the end: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('BENCH FAILED:', error);
    process.exit(1);
  },
);
