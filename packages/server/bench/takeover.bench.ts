/**
 * Durable runs bench (issue #33): server processes on one real redis-server and a mock provider.
 *
 * - crash -> first continued delta: a run streams on A, a reader follows it on B; A is SIGKILLed and
 *   the time until B's reader gets the first text delta after `step-restarted` is measured. It is
 *   bound by the lease (`BENCH_LEASE_MS`, default 2000; production default 15000) plus a reader's
 *   check (leaseMs / 4) plus the model's first token.
 * - SIGTERM -> first continued delta: the same with SIGTERM (the run is handed over, no lease wait),
 *   with a 60 s lease so a lease wait would show.
 * - store writes per step: the Redis commands the runner instance sends for one two-step run (a tool
 *   call, then an answer), takeover on and off, by name (`evalsha`: the store's Lua writes: appends,
 *   lease renewals, finish, claim; `set`: a stored value, the run's recorded start).
 *
 * Run: node --import tsx bench/takeover.bench.ts (part of `pnpm bench`). Knobs: BENCH_LEASE_MS, BENCH_ROUNDS (3).
 * Exits non-zero only when the bench itself breaks.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import type { Event } from '@parlance/protocol';
import { serveMockProvider, type ScriptedTurn } from '@parlance/testing';
import { frames } from '../test/helpers.ts';
import { startRedis } from '../test/redis-server.ts';
import type { FromInstance, ToInstance } from '../test/store-server-process.ts';

const LEASE_MS = Number(process.env.BENCH_LEASE_MS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GLOBAL_TIMEOUT_MS = 240_000;
const WORDS = Array.from({ length: 200 }, (_, i) => `w${i} `);

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

function script(request: { body: unknown }): ScriptedTurn {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.at(-1)!;
  if (last.role === 'tool') return { text: ['The ', 'sum ', 'is ', `${String(last.content)}.`], usage: { inputTokens: 9, outputTokens: 4 } };
  if (String(last.content).startsWith('tool')) return { toolCalls: [{ id: 'call_add', name: 'add', input: { a: 1, b: 2, ms: 10 } }], usage: { inputTokens: 5, outputTokens: 3 } };
  return { text: WORDS, usage: { inputTokens: 3, outputTokens: WORDS.length }, delayMs: 20 };
}

async function main() {
  const redis = await startRedis();
  const mock = await serveMockProvider({ dialect: 'openai_completions', script: (request) => script(request) });
  const start = (env: Record<string, string>): Promise<Instance> => {
    const child = fork(new URL('../test/store-server-process.ts', import.meta.url), {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, STORE: 'redis', REDIS_URL: redis.url, MOCK_URL: mock.url, TOOLS: '1', ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.on('message', (m: FromInstance) => m.type === 'ready' && resolve({ url: `http://127.0.0.1:${m.port}`, child }));
      child.once('exit', (code) => reject(new Error(`A server process exited (${code}) before it was ready`)));
    });
  };
  let n = 0;
  const post = async (url: string, text: string) => {
    const body = { clientRequestId: `bench_${++n}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] };
    const res = await fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const runId = res.headers.get('x-parlance-run-id')!;
    await res.body?.cancel(); // read on the other instance only
    return runId;
  };

  /** ms from stopping the runner with `signal` to the first delta of the step made again, seen on the other instance. */
  async function continued(signal: NodeJS.Signals, leaseMs: number, prefix: string): Promise<number> {
    const [a, b] = await Promise.all([start({ LEASE_MS: String(leaseMs), REDIS_PREFIX: prefix }), start({ LEASE_MS: String(leaseMs), REDIS_PREFIX: prefix })]);
    try {
      // Warm both processes (their first run loads and compiles the engine's code paths).
      for (const instance of [a, b]) for await (const _ of frames(await fetch(`${instance.url}/runs/${await post(instance.url, 'tool')}/events`)));
      const runId = await post(a.url, 'text');
      const stream = frames(await fetch(`${b.url}/runs/${runId}/events`));
      let deltas = 0;
      let stoppedAt = 0;
      let restarted = false;
      for await (const frame of { [Symbol.asyncIterator]: () => stream }) {
        const event = frame.data as Event | undefined;
        if (!event) continue;
        if (event.type === 'step-restarted') restarted = true;
        if (event.type !== 'text-delta') continue;
        if (restarted) return performance.now() - stoppedAt;
        if (++deltas === 5) {
          stoppedAt = performance.now();
          a.child.kill(signal);
        }
      }
      throw new Error('the run was not continued');
    } finally {
      a.child.kill('SIGKILL');
      b.child.kill('SIGKILL');
    }
  }

  const commands = (instance: Instance) =>
    new Promise<Record<string, number>>((resolve) => {
      const on = (m: FromInstance) => {
        if (m.type !== 'commands') return;
        instance.child.off('message', on);
        resolve(m.byName);
      };
      instance.child.on('message', on);
      instance.child.send({ type: 'commands' } satisfies ToInstance);
    });

  /** Commands the runner sends for one two-step run (a 60 s lease: no renewal falls inside it). */
  async function writesPerRun(takeover: boolean): Promise<{ byName: Record<string, number>; events: number }> {
    const a = await start({ LEASE_MS: '60000', REDIS_PREFIX: `writes${takeover}:`, TAKEOVER: takeover ? '1' : '0' });
    try {
      const before = await commands(a);
      const runId = await post(a.url, 'tool');
      let events = 0;
      for await (const frame of frames(await fetch(`${a.url}/runs/${runId}/events`))) if (frame.data) events++;
      const after = await commands(a);
      const byName: Record<string, number> = {};
      for (const [name, count] of Object.entries(after)) if (count - (before[name] ?? 0) > 0) byName[name] = count - (before[name] ?? 0);
      return { byName, events };
    } finally {
      a.child.kill('SIGKILL');
    }
  }

  const crash: number[] = [];
  const term: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    crash.push(await continued('SIGKILL', LEASE_MS, `crash${round}:`));
    term.push(await continued('SIGTERM', 60_000, `term${round}:`));
  }
  const on = await writesPerRun(true);
  const off = await writesPerRun(false);
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const row = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)}; ${xs.length} rounds)`;
  // evalsha = one append per event + the finish + lease renewals (every 2.5 s: the store grace's half); set = the recorded start.
  const writes = (w: { byName: Record<string, number>; events: number }) =>
    `${w.events} appends + ${(w.byName.evalsha ?? 0) - w.events} finish/renewals (Lua) + ${w.byName.set ?? 0} set (all: ${Object.entries(w.byName).map(([k, v]) => `${k} ${v}`).join(', ')})`;
  console.log(`\nDurable runs (Redis, two server processes, load ${loadavg()[0]!.toFixed(1)})`);
  console.log(`crash (SIGKILL) -> first continued delta, lease ${LEASE_MS} ms: ${row(crash)}`);
  console.log(`SIGTERM -> first continued delta (lease 60 s, handed over):  ${row(term)}`);
  console.log(`store writes for one 2-step run, takeover on:  ${writes(on)}`);
  console.log(`store writes for one 2-step run, takeover off: ${writes(off)}`);
  const extra = (on.byName.set ?? 0) - (off.byName.set ?? 0);
  console.log(`durability adds ${extra} store write per run (the recorded start; its events are the checkpoints): ${(extra / 2).toFixed(1)} per step in this 2-step run, 0 per event`);
  await mock.close();
  await redis.stop();
  clearTimeout(deadline);
}

main().catch((error) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
});
