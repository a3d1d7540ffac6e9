/**
 * Load bench: the Parlance server on Node (@hono/node-server) with the real engine,
 * calling the mock provider over real HTTP (both hops on 127.0.0.1).
 *
 *   client --HTTP/SSE--> Parlance server --HTTP/SSE--> mock provider (openai_completions)
 *
 * It reports, per batch, how many streamed chats completed with every event, time to
 * first byte and to first token, for the provider called directly (the same request
 * the engine sends) and through the server; the server's added latency is the
 * difference. Heap (after gc) is taken before the load, right after it, and after the
 * run store lets go of the finished runs, over two identical rounds.
 *
 * Run: `pnpm bench` (node --expose-gc --import tsx bench/load.bench.ts).
 * Knobs: BENCH_CONCURRENCY (200), BENCH_DELTAS (50), BENCH_DELAY_MS (2).
 * Exits non-zero only when the bench itself breaks (a crash or the global timeout),
 * never because of a timing or a FAIL line.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { openaiCompatible, resolveModel } from '@parlance/engine';
import { serveMockProvider } from '@parlance/testing';
import { createMemoryRunStore, createParlanceApp, engineRunner } from '../src/index.ts';
import { directChat, type Expect, serverChat, type StreamResult } from './sse-client.ts';
import { type BatchSummary, mb, ms, signedMb, summarize, table } from './stats.ts';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 50);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 2);
/** Unloaded latency: this many requests one after another, each way. */
const SEQUENTIAL = 30;
/** Finished runs stay resumable this long (the default is 10 minutes); short so a round can be released. */
const RETAIN_MS = 1_000;
const ROUNDS = 2;
const REQUEST_TIMEOUT_MS = 30_000;
const GLOBAL_TIMEOUT_MS = 120_000;
/** Heap after release may differ from the start by this much and still count as "returned". */
const HEAP_MARGIN_BYTES = 1 * 2 ** 20;

const gc = (globalThis as { gc?: () => void }).gc;

const deadline = setTimeout(() => {
  console.error(`\nBENCH ABORTED: not finished within ${GLOBAL_TIMEOUT_MS / 1000} s`);
  process.exit(2);
}, GLOBAL_TIMEOUT_MS);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** heapUsed after full collections (several, with turns in between, so finalizers and weak refs settle). */
async function heapUsed(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await sleep(50);
  gc?.();
  return process.memoryUsage().heapUsed;
}

async function main() {
  const deltas = Array.from({ length: DELTAS }, (_, i) => `tok${i} `);
  const expect: Expect = { deltas };
  const mock = await serveMockProvider({
    dialect: 'openai_completions',
    script: [{ text: deltas, usage: { inputTokens: 5, outputTokens: DELTAS }, delayMs: DELAY_MS }],
  });
  const provider = openaiCompatible({ id: 'mock', baseURL: `${mock.url}/v1`, apiKeyEnv: 'MOCK_API_KEY' });
  const store = createMemoryRunStore({ retainMs: RETAIN_MS });
  const app = createParlanceApp({
    models: [{ id: 'mock:bench', provider: 'mock' }],
    env: { MOCK_API_KEY: 'sk-bench-not-a-secret' },
    store,
    run: engineRunner({ engine: { resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock: provider } }) } }),
  });
  // Without createServer options, serve() makes a plain node:http server.
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await new Promise<void>((resolve, reject) => {
    if (server.listening) resolve();
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  const chatUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`;

  let nextId = 0;
  const chatBody = () => {
    const id = `bench_${nextId++}`;
    return {
      clientRequestId: id,
      thread: { version: 1, id: `th_${id}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] },
    };
  };
  const one = (kind: 'direct' | 'server'): Promise<StreamResult> => {
    const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    return kind === 'server' ? serverChat(chatUrl, chatBody(), expect, signal) : directChat(directUrl, directInit, expect, signal);
  };

  // One chat through the server to learn exactly what the engine sends upstream; the direct baseline sends the same.
  const probe = await serverChat(chatUrl, chatBody(), expect, AbortSignal.timeout(REQUEST_TIMEOUT_MS));
  if (!probe.ok) throw new Error(`The probe chat did not complete: ${probe.problem}`);
  const sent = mock.requests[0]!;
  const directUrl = sent.url;
  const directInit: RequestInit = {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(sent.headers).filter(([k]) => ['content-type', 'authorization', 'accept'].includes(k))),
    body: JSON.stringify(sent.body),
  };

  async function concurrent(kind: 'direct' | 'server', n: number, label: string): Promise<BatchSummary> {
    const start = performance.now();
    const results = await Promise.all(Array.from({ length: n }, () => one(kind)));
    return summarize(label, n, results, performance.now() - start);
  }
  async function sequential(kind: 'direct' | 'server', n: number, label: string): Promise<BatchSummary> {
    const start = performance.now();
    const results: StreamResult[] = [];
    for (let i = 0; i < n; i++) results.push(await one(kind));
    return summarize(label, 1, results, performance.now() - start);
  }
  /** Lets the run store drop finished runs: wait past retainMs, then one chat (its create sweeps). */
  async function release(): Promise<void> {
    await sleep(RETAIN_MS + 100);
    const sweep = await one('server');
    if (!sweep.ok) throw new Error(`The sweep chat did not complete: ${sweep.problem}`);
    // The mock records every request it gets; it is not the code under test, so it forgets them.
    mock.handler.reset();
  }

  // Warm up at full size (JIT, connection pools, buffers), so "before" is a steady state, not a cold start.
  process.stdout.write('warming up… ');
  await concurrent('direct', CONCURRENCY, 'warm-up');
  const warm = await concurrent('server', CONCURRENCY, 'warm-up');
  if (warm.failed) console.log(`\nwarm-up failures: ${warm.failed} (${warm.problems.join('; ')})`);
  process.stdout.write('sequential… ');
  const seqDirect = await sequential('direct', SEQUENTIAL, 'direct to provider');
  const seqServer = await sequential('server', SEQUENTIAL, 'via Parlance server');
  await release();

  const heapBefore = await heapUsed();
  const rounds: { direct: BatchSummary; server: BatchSummary; heapAfter: number; storeAfter: number; heapReleased: number; storeReleased: number }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    process.stdout.write(`round ${round}… `);
    const direct = await concurrent('direct', CONCURRENCY, `direct to provider (round ${round})`);
    const viaServer = await concurrent('server', CONCURRENCY, `via Parlance server (round ${round})`);
    const heapAfter = await heapUsed();
    const storeAfter = store.size();
    await release();
    const heapReleased = await heapUsed();
    rounds.push({ direct, server: viaServer, heapAfter, storeAfter, heapReleased, storeReleased: store.size() });
  }
  console.log('done\n');

  await mock.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));

  // ---- report ----
  console.log(`Parlance server load bench · Node ${process.version} · @hono/node-server · engine -> mock provider (openai_completions)`);
  console.log(`script: ${DELTAS} text deltas, ${DELAY_MS} ms apart, then usage · both hops real HTTP on 127.0.0.1 · one process`);
  console.log(`run store: memory, retainMs ${RETAIN_MS} · gc: ${gc ? 'exposed' : 'NOT exposed (run with node --expose-gc)'}\n`);

  const batches = [seqDirect, seqServer, ...rounds.flatMap((r) => [r.direct, r.server])];
  console.log(
    table([
      ['batch', 'conc.', 'completed', 'failed', 'frames/stream', 'TTFB p50', 'p99', 'first token p50', 'p99', 'stream p50', 'p99', 'wall ms'],
      ...batches.map((b) => [
        b.label,
        String(b.concurrency),
        String(b.completed),
        String(b.failed),
        b.framesPerStream,
        ms(b.ttfb.p50),
        ms(b.ttfb.p99),
        ms(b.ttft.p50),
        ms(b.ttft.p99),
        ms(b.total.p50),
        ms(b.total.p99),
        ms(b.wallMs),
      ]),
    ]),
  );
  console.log('  (times in ms from sending the request; "frames" are wire frames direct, protocol events via the server)');
  console.log("  (the server's first byte is its step-start frame, sent before it calls the provider, so the");
  console.log('   comparable measure is the first token: the first non-empty text delta)');
  for (const b of batches) if (b.problems.length) console.log(`  failures in "${b.label}": ${b.problems.join(' | ')}`);

  console.log('\nAdded latency to first token (via server minus direct, same percentile):');
  const added = (d: BatchSummary, s: BatchSummary) => ({ p50: s.ttft.p50 - d.ttft.p50, p99: s.ttft.p99 - d.ttft.p99 });
  const addedRows = [
    ['concurrency 1', seqDirect, seqServer] as const,
    ...rounds.map((r, i) => [`concurrency ${CONCURRENCY}, round ${i + 1}`, r.direct, r.server] as const),
  ];
  console.log(
    table([
      ['', 'direct p50', 'server p50', 'added p50', 'direct p99', 'server p99', 'added p99'],
      ...addedRows.map(([label, d, s]) => {
        const a = added(d, s);
        return [label, ms(d.ttft.p50), ms(s.ttft.p50), ms(a.p50), ms(d.ttft.p99), ms(s.ttft.p99), ms(a.p99)];
      }),
    ]),
  );

  console.log('\nHeap used after gc (MB):');
  console.log(
    table([
      ['', 'before', 'after load', 'runs held', 'after release', 'runs held', 'release - before'],
      ...rounds.map((r, i) => [
        `round ${i + 1}`,
        mb(heapBefore),
        mb(r.heapAfter),
        String(r.storeAfter),
        mb(r.heapReleased),
        String(r.storeReleased),
        signedMb(r.heapReleased - heapBefore),
      ]),
    ]),
  );
  const heldPerRun = (rounds[0]!.heapAfter - rounds[0]!.heapReleased) / Math.max(1, rounds[0]!.storeAfter - rounds[0]!.storeReleased);
  console.log(`  (finished runs held for resume cost about ${(heldPerRun / 1024).toFixed(1)} KB each until retainMs passes)`);

  const verdict = (pass: boolean, text: string) => console.log(`${pass ? 'PASS' : 'FAIL'}  ${text}`);
  console.log('');
  for (const [i, r] of rounds.entries()) {
    verdict(
      r.server.completed === CONCURRENCY && r.server.failed === 0,
      `round ${i + 1}: ${r.server.completed}/${CONCURRENCY} concurrent streamed chats completed with all events (${r.server.framesPerStream} events each, ${DELTAS} text deltas, one chat-finish 'completed', contiguous ids)`,
    );
  }
  const last = rounds.at(-1)!;
  const a = added(last.direct, last.server);
  verdict(
    Number.isFinite(a.p50) && Number.isFinite(a.p99),
    `added latency to first token reported: p50 ${ms(a.p50)} ms, p99 ${ms(a.p99)} ms at concurrency ${CONCURRENCY}; p50 ${ms(added(seqDirect, seqServer).p50)} ms unloaded`,
  );
  for (const [i, r] of rounds.entries()) {
    const diff = r.heapReleased - heapBefore;
    verdict(Math.abs(diff) <= HEAP_MARGIN_BYTES, `round ${i + 1}: heap returns to its start after the run store lets go (${signedMb(diff)} MB, margin ±${mb(HEAP_MARGIN_BYTES)} MB)`);
  }
  for (let i = 1; i < rounds.length; i++) {
    const growth = rounds[i]!.heapReleased - rounds[i - 1]!.heapReleased;
    verdict(Math.abs(growth) <= HEAP_MARGIN_BYTES, `no growth per round: after release, round ${i + 1} vs round ${i}: ${signedMb(growth)} MB`);
  }
  if (!gc) console.log('NOTE  heap figures without --expose-gc are not meaningful');
}

main()
  .then(() => {
    clearTimeout(deadline);
    // Keep-alive sockets of the global fetch pool would hold the process a few seconds more.
    process.exit(0);
  })
  .catch((error: unknown) => {
    console.error('\nBENCH CRASHED:', error);
    process.exit(1);
  });
