/**
 * Run store bench: 200 concurrent streamed chats over two server processes, first with
 * each process on its own memory store, then with both on one real Redis (Debian's
 * redis-server, started here on 127.0.0.1 on a free port), in the same run and against
 * the same mock provider, so the Redis store's cost reads off beside the memory store's.
 *
 *   this process: clients ──HTTP/SSE──> 2 server processes ──HTTP/SSE──> this process: mock provider
 *                                              └──────── one Redis ────────┘ (redis rows only)
 *
 * Reports per batch: completed streams (every event, ids without gap, one chat-finish),
 * time to first byte and to first token (p50/p99), the latency the server adds over calling
 * the provider directly at the same concurrency, and for Redis the round trips per streamed
 * text delta: the commands the two processes sent on their command connections (a MULTI/EXEC
 * counts once), and Redis's own `total_commands_processed` (every connection, pub/sub and the commands
 * inside each Lua script included).
 *
 * Run: `pnpm bench` (this file: node --import tsx bench/run-stores.bench.ts).
 * Knobs: BENCH_CONCURRENCY (200), BENCH_DELTAS (50), BENCH_DELAY_MS (2).
 * Exits non-zero only when the bench itself breaks (a crash or the global timeout).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { startRedis } from '../test/redis-server.ts';
import type { FromInstance, ToInstance } from '../test/store-server-process.ts';
import { serveBenchMock } from './bench-mock.ts';
import { type DirectRequest, directChat, probeDirectRequest, serverChat, type StreamResult } from './sse-client.ts';
import { type BatchSummary, LATENCY_HEADERS, latencyCells, ms, summarize, table } from './stats.ts';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 50);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 2);
const REQUEST_TIMEOUT_MS = 30_000;
const GLOBAL_TIMEOUT_MS = 180_000;

const children: ChildProcess[] = [];
const deadline = setTimeout(() => {
  console.error(`\nBENCH ABORTED: not finished within ${GLOBAL_TIMEOUT_MS / 1000} s`);
  for (const child of children) child.kill('SIGKILL');
  process.exit(2);
}, GLOBAL_TIMEOUT_MS);

interface Instance {
  url: string;
  child: ChildProcess;
}

function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = fork(new URL('../test/store-server-process.ts', import.meta.url), { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env } });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.on('message', (m: FromInstance) => m.type === 'ready' && resolve({ url: `http://127.0.0.1:${m.port}`, child }));
    child.once('exit', (code) => reject(new Error(`A server process exited (${code}) before it was ready`)));
  });
}

function commandsSent(instance: Instance): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: FromInstance) => {
      if (m.type !== 'commands') return;
      instance.child.off('message', onMessage);
      resolve(m.count);
    };
    instance.child.on('message', onMessage);
    instance.child.send({ type: 'commands' } satisfies ToInstance);
  });
}

async function stop(instance: Instance): Promise<void> {
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  instance.child.send({ type: 'exit' } satisfies ToInstance);
  await exited;
}

async function processedByRedis(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? NaN);
}

async function main() {
  const loadAtStart = loadavg()[0]!;
  const { mock, expect } = await serveBenchMock(DELTAS, DELAY_MS);
  const redisServer = await startRedis();
  const redis = new Redis(redisServer.url);

  let nextId = 0;
  const chatBody = () => {
    const id = `bench_${nextId++}`;
    return { clientRequestId: id, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] };
  };
  let direct: DirectRequest | undefined;

  /** CONCURRENCY chats at once, alternating between the two instances (a round-robin balancer). */
  async function overInstances(instances: Instance[], label: string): Promise<BatchSummary> {
    const start = performance.now();
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) =>
        serverChat(`${instances[i % instances.length]!.url}/chat`, chatBody(), expect, AbortSignal.timeout(REQUEST_TIMEOUT_MS)),
      ),
    );
    mock.handler.reset();
    return summarize(label, CONCURRENCY, results, performance.now() - start);
  }
  async function directBatch(label: string): Promise<BatchSummary> {
    const start = performance.now();
    const results: StreamResult[] = await Promise.all(
      Array.from({ length: CONCURRENCY }, () => directChat(direct!.url, direct!.init, expect, AbortSignal.timeout(REQUEST_TIMEOUT_MS))),
    );
    mock.handler.reset();
    return summarize(label, CONCURRENCY, results, performance.now() - start);
  }

  const rows: { store: string; direct: BatchSummary; server: BatchSummary; sentPerDelta?: number; processedPerDelta?: number }[] = [];
  for (const store of ['memory', 'redis'] as const) {
    process.stdout.write(`${store}: starting two server processes… `);
    const env = { STORE: store, REDIS_URL: redisServer.url, MOCK_URL: mock.url, REDIS_PREFIX: `bench${Date.now()}:` };
    const instances = await Promise.all([startInstance(env), startInstance(env)]);
    direct ??= await probeDirectRequest(`${instances[0]!.url}/chat`, chatBody(), expect, mock.requests, REQUEST_TIMEOUT_MS);
    process.stdout.write('warming up… ');
    await directBatch('warm-up');
    await overInstances(instances, 'warm-up');
    process.stdout.write('measuring… ');
    const directRun = await directBatch(`direct to provider (${store} round)`);
    const sentBefore = (await Promise.all(instances.map(commandsSent))).reduce((a, b) => a + b, 0);
    const processedBefore = await processedByRedis(redis);
    const server = await overInstances(instances, `${store} store, 2 processes`);
    const sentAfter = (await Promise.all(instances.map(commandsSent))).reduce((a, b) => a + b, 0);
    const processedAfter = await processedByRedis(redis);
    const streamed = server.completed * DELTAS;
    const row: (typeof rows)[number] = { store, direct: directRun, server };
    if (store === 'redis') {
      row.sentPerDelta = (sentAfter - sentBefore) / streamed;
      row.processedPerDelta = (processedAfter - processedBefore - 1) / streamed; // minus this INFO
    }
    rows.push(row);
    await Promise.all(instances.map(stop));
    console.log('done');
  }
  await redis.quit();
  await redisServer.stop();
  await mock.close();

  console.log(`\nRun store bench · Node ${process.version} · ${CONCURRENCY} concurrent chats over 2 server processes (round robin) · engine -> mock provider (openai_completions)`);
  console.log(`script: ${DELTAS} text deltas, ${DELAY_MS} ms apart · memory: each process its own store · redis: both on one redis-server (127.0.0.1)`);
  console.log(`machine: ${availableParallelism()} CPUs, 1-min load average ${loadAtStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end\n`);
  console.log(
    table([
      ['batch', 'completed', 'failed', ...LATENCY_HEADERS],
      ...rows.flatMap((r) => [r.direct, r.server]).map((b) => [
        b.label,
        String(b.completed),
        String(b.failed),
        ...latencyCells(b),
      ]),
    ]),
  );
  for (const r of rows) for (const b of [r.direct, r.server]) if (b.problems.length) console.log(`  failures in "${b.label}": ${b.problems.join(' | ')}`);
  console.log('\nAdded by the server (via server minus direct, same percentile, same round):');
  console.log(
    table([
      ['store', 'added TTFB p50', 'added TTFB p99', 'added first token p50', 'added first token p99', 'Redis round trips / delta (sent)', 'Redis commands executed / delta'],
      ...rows.map((r) => [
        r.store,
        ms(r.server.ttfb.p50 - r.direct.ttfb.p50),
        ms(r.server.ttfb.p99 - r.direct.ttfb.p99),
        ms(r.server.ttft.p50 - r.direct.ttft.p50),
        ms(r.server.ttft.p99 - r.direct.ttft.p99),
        r.sentPerDelta === undefined ? '-' : r.sentPerDelta.toFixed(2),
        r.processedPerDelta === undefined ? '-' : r.processedPerDelta.toFixed(2),
      ]),
    ]),
  );
  console.log("  (the server's first byte is its step-start frame, sent before it calls the provider; the first token is the");
  console.log('   first non-empty text delta. "sent": commands the two processes sent on their command connections, a');
  console.log('   MULTI/EXEC once; "executed": Redis INFO total_commands_processed, all connections, the commands inside');
  console.log('   each Lua script and pub/sub included. Under a loaded machine the latencies say little; the round trips do.)');
  clearTimeout(deadline);
}

main().catch((error) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
});
