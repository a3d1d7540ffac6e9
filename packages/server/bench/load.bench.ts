/**
 * Load bench: the Parlance server on Node (@hono/node-server) with the real engine,
 * calling the mock provider over real HTTP (both hops on 127.0.0.1).
 *
 *   this process: client ──HTTP/SSE──> child process: Parlance server ──HTTP/SSE──> this process: mock provider
 *
 * The server runs in its own process (server-process.ts) so its event loop and heap
 * are not shared with the load generator. The bench reports, per batch, how many
 * streamed chats completed with every event, time to first byte and to first token,
 * for the provider called directly (the same request the engine sends) and through
 * the server; the server's added latency is the difference. The server's heap (after
 * gc) is taken before the load, right after it, and after the run store lets go of
 * the finished runs, over two identical rounds.
 *
 * Run: `pnpm bench` (node --expose-gc --import tsx bench/load.bench.ts).
 * Knobs: BENCH_CONCURRENCY (200), BENCH_DELTAS (50), BENCH_DELAY_MS (2), BENCH_CPU_PROF (a directory).
 * Exits non-zero only when the bench itself breaks (a crash or the global timeout),
 * never because of a timing or a FAIL line.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import type { FromServer, ToServer } from './server-process.ts';

type FromServerMeasured = Extract<FromServer, { type: 'measured' }>;
import { serveBenchMock } from './bench-mock.ts';
import { directChat, probeDirectRequest, serverChat, type StreamResult } from './sse-client.ts';
import { type BatchSummary, LATENCY_HEADERS, latencyCells, mb, ms, signedMb, summarize, table } from './stats.ts';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 50);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 2);
/** Unloaded latency: this many requests one after another, each way. */
const SEQUENTIAL = Math.max(10, Math.min(30, Math.floor(4_000 / (DELTAS * DELAY_MS + 20))));
const ROUNDS = 2;
const REQUEST_TIMEOUT_MS = 30_000;
const GLOBAL_TIMEOUT_MS = 120_000;
/** Heap after release may differ from the start by this much and still count as "returned". */
const HEAP_MARGIN_BYTES = 1 * 2 ** 20;

let child: ChildProcess | undefined;

const deadline = setTimeout(() => {
  console.error(`\nBENCH ABORTED: not finished within ${GLOBAL_TIMEOUT_MS / 1000} s`);
  child?.kill();
  process.exit(2);
}, GLOBAL_TIMEOUT_MS);

/** The next message of this type from the server process. */
function next<T extends FromServer['type']>(type: T): Promise<Extract<FromServer, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromServer) => {
      if (message.type !== type) return;
      child!.off('message', onMessage);
      child!.off('exit', onExit);
      resolve(message as Extract<FromServer, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`The server process exited (${code}) while the bench waited for "${type}"`));
    child!.on('message', onMessage);
    child!.once('exit', onExit);
  });
}

function ask<T extends FromServer['type']>(message: ToServer, reply: T) {
  const answer = next(reply);
  child!.send(message);
  return answer;
}

async function main() {
  const loadAtStart = loadavg()[0]!;
  const { mock, expect } = await serveBenchMock(DELTAS, DELAY_MS);
  child = fork(new URL('./server-process.ts', import.meta.url), {
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server process there.
    execArgv: ['--expose-gc', '--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    env: { ...process.env, MOCK_URL: mock.url },
  });
  const { port } = await next('ready');
  const chatUrl = `http://127.0.0.1:${port}/chat`;

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
    return kind === 'server' ? serverChat(chatUrl, chatBody(), expect, signal) : directChat(baseline.url, baseline.init, expect, signal);
  };

  const baseline = await probeDirectRequest(chatUrl, chatBody(), expect, mock.requests, REQUEST_TIMEOUT_MS);

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
  /** Moves the server's store clock past retainMs, then one chat (its create sweeps expired runs). */
  async function release(): Promise<void> {
    await ask({ type: 'expire' }, 'expired');
    const sweep = await one('server');
    if (!sweep.ok) throw new Error(`The sweep chat did not complete: ${sweep.problem}`);
    // The mock records every request it gets; it is not the code under test, so it forgets them.
    mock.handler.reset();
  }
  const measure = (settle: boolean) => ask({ type: 'measure', settle }, 'measured');

  // Warm up at full size (JIT, connection pools, buffers), so "before" is a steady state, not a cold start.
  process.stdout.write('warming up… ');
  await concurrent('direct', CONCURRENCY, 'warm-up');
  const warm = await concurrent('server', CONCURRENCY, 'warm-up');
  if (warm.failed) console.log(`\nwarm-up failures: ${warm.failed} (${warm.problems.join('; ')})`);
  process.stdout.write('sequential… ');
  const seqDirect = await sequential('direct', SEQUENTIAL, 'direct to provider');
  const seqServer = await sequential('server', SEQUENTIAL, 'via Parlance server');
  await release();

  const before = await measure(true);
  const rounds: { direct: BatchSummary; server: BatchSummary; cpuMicros: number; after: FromServerMeasured; released: FromServerMeasured }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    process.stdout.write(`round ${round}… `);
    const direct = await concurrent('direct', CONCURRENCY, `direct to provider (round ${round})`);
    const cpuStart = (await ask({ type: 'cpu' }, 'cpu')).micros;
    const viaServer = await concurrent('server', CONCURRENCY, `via Parlance server (round ${round})`);
    const cpuMicros = (await ask({ type: 'cpu' }, 'cpu')).micros - cpuStart;
    const after = await measure(false);
    await release();
    const released = await measure(true);
    rounds.push({ direct, server: viaServer, cpuMicros, after, released });
  }
  console.log('done\n');

  const exited = new Promise((resolve) => child!.once('exit', resolve));
  child.send({ type: 'exit' } satisfies ToServer);
  await exited;
  await mock.close();

  // ---- report ----
  console.log(`Parlance server load bench · Node ${process.version} · @hono/node-server · engine -> mock provider (openai_completions)`);
  console.log(`script: ${DELTAS} text deltas, ${DELAY_MS} ms apart, then usage · both hops real HTTP on 127.0.0.1 · server in its own process`);
  console.log('run store: memory, default retainMs (10 min); the bench advances its clock past that to release a round');
  // Latency under load depends on what else the machine runs; the CPU time per chat below does not.
  console.log(`machine: ${availableParallelism()} CPUs, 1-min load average ${loadAtStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end\n`);

  const batches = [seqDirect, seqServer, ...rounds.flatMap((r) => [r.direct, r.server])];
  console.log(
    table([
      ['batch', 'conc.', 'completed', 'failed', 'frames/stream', ...LATENCY_HEADERS],
      ...batches.map((b) => [
        b.label,
        String(b.concurrency),
        String(b.completed),
        String(b.failed),
        b.framesPerStream,
        ...latencyCells(b),
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

  console.log('\nServer process CPU time (user + system) while it served the round, independent of how busy the machine is:');
  for (const [i, r] of rounds.entries()) {
    const perChat = r.cpuMicros / 1000 / CONCURRENCY;
    console.log(`  round ${i + 1}: ${(r.cpuMicros / 1e6).toFixed(2)} s for ${CONCURRENCY} chats = ${perChat.toFixed(2)} ms a chat, ${(r.cpuMicros / Math.max(1, r.server.framesTotal)).toFixed(0)} µs an event sent`);
  }

  console.log('\nServer process heap used after gc (MB); runs = runs the store holds, sockets = open TCP sockets:');
  console.log(
    table([
      ['', 'before', 'runs', 'sockets', 'after load', 'runs', 'sockets', 'after release', 'runs', 'sockets', 'release - before'],
      ...rounds.map((r, i) => [
        `round ${i + 1}`,
        mb(before.heapUsed),
        String(before.runs),
        String(before.sockets),
        mb(r.after.heapUsed),
        String(r.after.runs),
        String(r.after.sockets),
        mb(r.released.heapUsed),
        String(r.released.runs),
        String(r.released.sockets),
        signedMb(r.released.heapUsed - before.heapUsed),
      ]),
    ]),
  );
  const first = rounds[0]!;
  const heldPerRun = (first.after.heapUsed - first.released.heapUsed) / Math.max(1, first.after.runs - first.released.runs);
  console.log(`  ("after load" still holds the finished runs for resume and the keep-alive sockets: about ${(heldPerRun / 1024).toFixed(1)} KB a run;`);
  console.log('   "after release" is after retainMs has passed and idle keep-alive connections have closed)');

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
    const diff = r.released.heapUsed - before.heapUsed;
    verdict(Math.abs(diff) <= HEAP_MARGIN_BYTES, `round ${i + 1}: heap returns to its start after the run store lets go (${signedMb(diff)} MB, margin ±${mb(HEAP_MARGIN_BYTES)} MB)`);
  }
  for (let i = 1; i < rounds.length; i++) {
    const growth = rounds[i]!.released.heapUsed - rounds[i - 1]!.released.heapUsed;
    verdict(Math.abs(growth) <= HEAP_MARGIN_BYTES, `no growth per round: after release, round ${i + 1} vs round ${i}: ${signedMb(growth)} MB`);
  }
}

main()
  .then(() => {
    clearTimeout(deadline);
    // Keep-alive sockets of the global fetch pool would hold the process a few seconds more.
    process.exit(0);
  })
  .catch((error: unknown) => {
    console.error('\nBENCH CRASHED:', error);
    child?.kill();
    process.exit(1);
  });
