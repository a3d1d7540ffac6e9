/**
 * Backpressure bench (issue #26): RSS of a Parlance server process while one client streams an
 * endless upstream, per store (memory, a real redis-server), before and after the bounds.
 *
 *   "before": BOUNDED=0, the old code path: the engine's event queue unbounded (maxQueuedBytes at
 *             its maximum) and the memory store without byte budgets (maxLiveBytes, maxFinishedBytes).
 *   "after":  the defaults: a 256 KiB queue that pauses the upstream read, 128 MiB live and 64 MiB
 *             finished bytes in the memory store.
 *
 * The client reads every frame as it comes; a run stopped by a limit (run_limit at maxBytesPerRun,
 * 16 MiB) is started again at once, as a user pressing retry would, for the whole duration.
 * Printed: RSS sampled every second (start, peak, end), bytes the upstream wrote, bytes the client
 * received, runs started.
 *
 * Run: `pnpm bench` (this file: node --import tsx bench/endless.bench.ts).
 * Knobs: BENCH_ENDLESS_MS (default 8000; the figures in the README are with 30000).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { Redis } from 'ioredis';
import { startRedis } from '../test/redis-server.ts';
import { type EndlessUpstream, serveEndlessUpstream } from '../test/endless-upstream.ts';
import type { FromEndless, ToEndless } from '../test/endless-server-process.ts';

const DURATION_MS = Number(process.env.BENCH_ENDLESS_MS ?? 8_000);
const MiB = 1024 * 1024;
const children = new Set<ChildProcess>();
const deadline = setTimeout(() => {
  console.error('\nBENCH ABORTED: not finished in time');
  for (const child of children) child.kill('SIGKILL');
  process.exit(2);
}, DURATION_MS * 4 + 60_000);

interface Row {
  store: string;
  mode: string;
  rssStart: number;
  rssPeak: number;
  rssEnd: number;
  upstream: number;
  received: number;
  runs: number;
}

function start(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(new URL('../test/endless-server-process.ts', import.meta.url), { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env } });
  children.add(child);
  return new Promise((resolve, reject) => {
    child.on('message', (m: FromEndless) => m.type === 'ready' && resolve({ child, url: `http://127.0.0.1:${m.port}` }));
    child.once('exit', (code) => reject(new Error(`The server process exited (${code})`)));
  });
}

function rss(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: FromEndless) => {
      if (m.type !== 'rss') return;
      child.off('message', on);
      resolve(m.rss);
    };
    child.on('message', on);
    child.send({ type: 'rss' } satisfies ToEndless);
  });
}

async function measure(store: string, mode: 'before' | 'after', upstream: EndlessUpstream, env: Record<string, string>): Promise<Row> {
  const { child, url } = await start({ ...env, STORE: store, BOUNDED: mode === 'before' ? '0' : '1', MOCK_URL: upstream.url });
  const rssStart = await rss(child);
  let rssPeak = rssStart;
  const wroteBefore = upstream.written();
  const until = Date.now() + DURATION_MS;
  let received = 0;
  let runs = 0;
  const sampler = setInterval(() => void rss(child).then((r) => (rssPeak = Math.max(rssPeak, r))), 1_000);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), DURATION_MS);
  try {
    while (Date.now() < until) {
      runs++;
      const body = { clientRequestId: `endless_${runs}_${Math.random()}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Go on forever' }] }] };
      const response = await fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: stop.signal }).catch(() => undefined);
      if (!response?.body) continue;
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          received += value.byteLength;
        }
      } catch {
        // the duration ended mid-stream
      }
    }
  } finally {
    clearTimeout(timer);
    clearInterval(sampler);
  }
  const rssEnd = await rss(child);
  rssPeak = Math.max(rssPeak, rssEnd);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  children.delete(child);
  return { store, mode, rssStart, rssPeak, rssEnd, upstream: upstream.written() - wroteBefore, received, runs };
}

async function main() {
  const upstream = await serveEndlessUpstream();
  const redisServer = await startRedis();
  const admin = new Redis(redisServer.url);
  const rows: Row[] = [];
  try {
    for (const store of ['memory', 'redis']) {
      for (const mode of ['before', 'after'] as const) {
        await admin.flushall();
        rows.push(await measure(store, mode, upstream, { REDIS_URL: redisServer.url, REDIS_PREFIX: `endless-${mode}:` }));
        const row = rows.at(-1)!;
        console.error(`  ${store} ${mode}: peak RSS ${(row.rssPeak / MiB).toFixed(0)} MiB`);
      }
    }
  } finally {
    await admin.quit();
    await redisServer.stop();
    await upstream.close();
  }
  const mib = (n: number) => `${(n / MiB).toFixed(0)} MiB`;
  console.log(`\nOne endless upstream for ${DURATION_MS / 1000} s, one client reading as fast as it can, restarting a run stopped by a limit:`);
  console.log('| store | code path | RSS start | RSS peak | RSS end | upstream read | client received | runs |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.store} | ${r.mode} | ${mib(r.rssStart)} | ${mib(r.rssPeak)} | ${mib(r.rssEnd)} | ${mib(r.upstream)} | ${mib(r.received)} | ${r.runs} |`);
  clearTimeout(deadline);
}

main().catch((error) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
});
