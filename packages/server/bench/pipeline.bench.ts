/**
 * The server's own pipeline per delta, end to end inside one process: `createParlanceApp` with a
 * runner that yields ready events (no upstream, no decode, no engine), signing on, the memory store,
 * the response body read to its end. What it measures is what stages.bench.ts leaves out: the hops
 * between scrub, sign, store, the reader's wait and framing. The runner yields its 5,000 recorded
 * deltas in bursts of 200 per event-loop turn, as an upstream chunk decodes to many.
 * Run: `node --import tsx bench/pipeline.bench.ts` (also in `pnpm bench`). Prints numbers; never fails on a timing.
 */
import type { Event } from '@parlance/protocol';
import { realisticDeltas } from '../../../tooling/bench/src/realistic-deltas.ts';
import { createParlanceApp } from '../src/handler.ts';
import { createMemoryRunStore } from '../src/memory-run-store.ts';

const DELTAS = Number(process.env.BENCH_PIPELINE_DELTAS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_PIPELINE_ROUNDS ?? 15);
const BURST = 200;
const deltas = realisticDeltas(DELTAS);

const app = createParlanceApp({
  models: [{ id: 'bench:m', provider: 'bench' }],
  secret: 'bench-signing-secret-not-a-real-one-0123456789',
  store: createMemoryRunStore(),
  async *run(): AsyncGenerator<Event> {
    yield { type: 'step-start', step: 0 };
    yield { type: 'message-start', responseId: 'r1', model: 'm' };
    yield { type: 'text-start', id: 't0' };
    for (let i = 0; i < deltas.length; i++) {
      yield { type: 'text-delta', id: 't0', delta: deltas[i]! };
      if (i % BURST === BURST - 1) await new Promise((resolve) => setImmediate(resolve));
    }
    yield { type: 'text-end', id: 't0' };
    yield { type: 'finish', finishReason: 'stop', usage: {} };
    yield { type: 'chat-finish', haltReason: 'completed', usage: {} };
  },
});

let n = 0;
async function chat(): Promise<void> {
  const id = n++;
  const body = { clientRequestId: `c${id}`, model: 'bench:m', thread: { version: 1, id: `th${id}`, messages: [{ id: `u${id}`, role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] } };
  const response = await app.fetch(new Request('http://bench/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  if (!(await response.text()).includes('chat-finish')) throw new Error('The chat did not finish');
}

for (let i = 0; i < 3; i++) await chat();
const per: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const start = process.cpuUsage();
  await chat();
  const used = process.cpuUsage(start);
  per.push((used.user + used.system) / DELTAS);
}
per.sort((a, b) => a - b);
console.log(
  `\nServer pipeline per delta (createParlanceApp, ready events, signing on, memory store, body read; ${DELTAS.toLocaleString('en')} deltas, ${ROUNDS} rounds): ` +
    `median ${per[Math.floor(per.length / 2)]!.toFixed(2)} µs (${per[0]!.toFixed(2)}–${per.at(-1)!.toFixed(2)})`,
);
