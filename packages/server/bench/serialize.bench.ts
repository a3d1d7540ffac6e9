/**
 * What the server spends per event between the runner and the socket, before and after issue #16:
 *   - before: scrub by JSON.stringify + search, count the event's bytes for the store's limit by
 *     JSON.stringify, then serialize the SSE frame (three serializations of every event);
 *   - now: scrub by walking the strings (`createScrubber(...).event`), count by `jsonLength`, then
 *     serialize the frame (one serialization).
 * 20,000 text deltas, four secrets, interleaved rounds in one process; medians. Prints numbers, never fails on a timing.
 * Run: `pnpm bench` or `node --import tsx bench/serialize.bench.ts`.
 */
import { secretForms } from '@parlance/engine';
import { formatSseFrame, type Event } from '@parlance/protocol';
import { jsonLength } from '../src/json-length.ts';
import { createScrubber } from '../src/scrub.ts';

const DELTAS = 20_000;
const ROUNDS = 15;
const SECRETS = ['sk-proj-Zx81kQ0c4mP9vT2rW7yH3nB6dF5gJ1aL0sE8uI4oK2qR9tY7wX3zC6vB1nM5', 'bench-signing-secret-0123456789abcdef0123456789abcdef', 'Bearer gw_live_5f3e9a1c7b2d4e6f8091a2b3c4d5e6f7', 'sk-ant-api03-Hq7Lw2Xc9Vb4Nm1Kj8Gf5Ds3Ap6Zo0Iu-AAAA'];
const events: Event[] = Array.from({ length: DELTAS }, (_, i) => ({ type: 'text-delta', id: 't0', delta: `tok${i} ` }));
const escaped = secretForms(SECRETS).map((f) => JSON.stringify(f).slice(1, -1));

let sink = 0;
const ways = {
  before: () => {
    for (const event of events) {
      const text = JSON.stringify(event);
      if (escaped.some((s) => text.includes(s))) sink++;
      sink += JSON.stringify(event).length;
      sink += formatSseFrame(event).length;
    }
  },
  now: () => {
    const scrub = createScrubber(SECRETS);
    for (const event of events) {
      if (scrub.event(event) !== event) sink++;
      sink += jsonLength(event);
      sink += formatSseFrame(event).length;
    }
  },
};
const times: Record<keyof typeof ways, number[]> = { before: [], now: [] };
for (let round = -2; round < ROUNDS; round++) {
  for (const way of (round % 2 ? ['now', 'before'] : ['before', 'now']) as (keyof typeof ways)[]) {
    const start = performance.now();
    ways[way]();
    if (round >= 0) times[way].push(((performance.now() - start) * 1e6) / DELTAS);
  }
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const [b, n] = [median(times.before), median(times.now)];
console.log(`\nPer delta between runner and socket (scrub + store byte count + SSE frame), median of ${ROUNDS} interleaved rounds (${sink > 0 ? 'ok' : '?'}):`);
console.log(`  before (3 serializations)   ${b.toFixed(0)} ns`);
console.log(`  now    (1 serialization)    ${n.toFixed(0)} ns   ${(n / b).toFixed(2)}x`);
