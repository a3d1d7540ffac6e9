/**
 * Scrub bench: what checking each event for secrets costs the server, per clean delta and per
 * `chat-finish` carrying a long thread. Side by side, interleaved round by round in one process:
 *   - old: the scrubber this package had before (JSON.stringify every event, search the JSON-escaped
 *     forms; on a hit split/join and JSON.parse), kept here as the baseline;
 *   - walk: `createScrubber(...).event` (walks the event's strings, no serializing);
 *   - stream: `createScrubber(...).push` (the walk, plus the per-block hold for secrets split across deltas).
 * Four secrets (every form `secretForms` writes: raw, URL-encoded, hex, base64 at three alignments,
 * JSON-escaped; about nine each) as a typical server has: a provider key, a second provider key, the
 * signing secret, a credential header. Before the forms grew (issue #24, 13 forms for these four;
 * 15 rounds, 2 cores): push 1232-1570 ns a clean delta, event 711-844 µs a 500-message chat-finish;
 * after (37 forms): push 948-1189 ns, event 1176-1249 µs. The deltas hold no secret (the common case); the text is
 * ordinary words, so some deltas end in a letter a form begins with and are held for one delta.
 *
 * Run: `pnpm bench` or `node --import tsx bench/scrub.bench.ts`.
 * Knobs: BENCH_SCRUB_DELTAS (20000), BENCH_SCRUB_ROUNDS (15), BENCH_SCRUB_MESSAGES (500). Prints numbers; never fails on a timing.
 */
import { REDACTED, secretForms } from '@parlance/engine';
import type { Event, Message } from '@parlance/protocol';
import { createScrubber } from '../src/scrub.ts';

const DELTAS = Number(process.env.BENCH_SCRUB_DELTAS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_SCRUB_ROUNDS ?? 15);
const MESSAGES = Number(process.env.BENCH_SCRUB_MESSAGES ?? 500);
const SECRETS = [
  'sk-proj-Zx81kQ0c4mP9vT2rW7yH3nB6dF5gJ1aL0sE8uI4oK2qR9tY7wX3zC6vB1nM5',
  'sk-ant-api03-Hq7Lw2Xc9Vb4Nm1Kj8Gf5Ds3Ap6Zo0Iu-AAAA',
  'bench-signing-secret-0123456789abcdef0123456789abcdef',
  'Bearer gw_live_5f3e9a1c7b2d4e6f8091a2b3c4d5e6f7',
];

/** The scrubber this package had before (the baseline). */
function stringifyScrubber(secrets: readonly string[]): (event: Event) => Event {
  const escaped = secretForms(secrets).map((f) => JSON.stringify(f).slice(1, -1));
  return (event) => {
    const text = JSON.stringify(event);
    if (!escaped.some((s) => text.includes(s))) return event;
    let clean = text;
    for (const secret of escaped) clean = clean.split(secret).join(REDACTED);
    return JSON.parse(clean) as Event;
  };
}

const WORDS = 'the quick brown fox jumps over a lazy dog while seven cats watch from the old stone wall and nobody asks why'.split(' ');

function buildDeltas(): Event[] {
  const out: Event[] = [];
  for (let i = 0; i < DELTAS; i++) out.push({ type: 'text-delta', id: 'txt_0', delta: `${WORDS[i % WORDS.length]!}${i % 3 === 0 ? ',' : ''} ` });
  // Some deltas end mid-word, as providers cut them.
  for (let i = 0; i < DELTAS; i += 7) {
    const e = out[i] as { delta: string };
    e.delta = e.delta.trimEnd().slice(0, -1);
  }
  return out;
}

function buildFinish(): Event {
  const messages: Message[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    messages.push(
      i % 2 === 0
        ? { id: `u${i}`, role: 'user', parts: [{ type: 'text', text: `Question ${i}: ${WORDS.join(' ')}` }] }
        : { id: `a${i}`, role: 'assistant', parts: [{ type: 'text', text: WORDS.join(' ').repeat(4) }, { type: 'tool-call', id: `c${i}`, name: 'lookup', input: { city: `City ${i}`, days: i % 7, tags: ['a', 'b'] } }] },
    );
  }
  return { type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 10, outputTokens: 20 }, thread: { id: 't', messages } } as Event;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function main() {
  const deltas = buildDeltas();
  const finish = buildFinish();
  const old = stringifyScrubber(SECRETS);
  const released: Event[] = [];
  let sink = 0;
  let held = 0;
  const ways: Record<'old' | 'walk' | 'stream', { delta: number[]; finish: number[] }> = { old: { delta: [], finish: [] }, walk: { delta: [], finish: [] }, stream: { delta: [], finish: [] } };
  const runs: Record<keyof typeof ways, () => void> = {
    old: () => {
      for (const event of deltas) if (old(event) !== event) sink++;
    },
    walk: () => {
      const scrubber = createScrubber(SECRETS);
      for (const event of deltas) if (scrubber.event(event) !== event) sink++;
    },
    stream: () => {
      const scrubber = createScrubber(SECRETS);
      held = 0;
      for (const event of deltas) {
        const out = scrubber.push(event, released);
        if (out !== event) held++;
        released.length = 0;
      }
      scrubber.flush();
    },
  };
  const finishOf: Record<keyof typeof ways, (event: Event) => Event> = { old, walk: createScrubber(SECRETS).event, stream: createScrubber(SECRETS).event };
  for (let round = -2; round < ROUNDS; round++) {
    // Interleaved, and the order rotates, so drift and JIT warm-up hit every way alike; two warm-up rounds.
    const order = (['old', 'walk', 'stream'] as const).map((_, i, all) => all[(i + Math.max(0, round)) % all.length]!);
    for (const way of order) {
      let start = performance.now();
      runs[way]();
      const deltaMs = performance.now() - start;
      start = performance.now();
      if (finishOf[way](finish) !== finish) sink++;
      const finishMs = performance.now() - start;
      if (round >= 0) {
        ways[way].delta.push((deltaMs * 1e6) / DELTAS);
        ways[way].finish.push(finishMs * 1000);
      }
    }
  }
  if (sink !== 0) throw new Error('a clean event was changed');
  const bytes = JSON.stringify(finish).length;
  const base = median(ways.old.delta);
  const baseFinish = median(ways.old.finish);
  console.log(`\nScrub: ${SECRETS.length} secrets (${secretForms(SECRETS).length} forms), median of ${ROUNDS} interleaved rounds:`);
  console.log(`  per clean text delta (${DELTAS} deltas)        per chat-finish (${MESSAGES}-message thread, ${(bytes / 1024).toFixed(0)} KB)`);
  for (const way of ['old', 'walk', 'stream'] as const) {
    const d = median(ways[way].delta);
    const f = median(ways[way].finish);
    const label = { old: 'old (JSON.stringify)', walk: 'walk (event)', stream: 'stream (push)' }[way];
    console.log(`  ${label.padEnd(22)} ${d.toFixed(0).padStart(5)} ns  ${(d / base).toFixed(2)}x      ${f.toFixed(0).padStart(6)} µs  ${(f / baseFinish).toFixed(2)}x`);
  }
  console.log(`  stream: ${held} of ${DELTAS} deltas (${((held / DELTAS) * 100).toFixed(1)}%) came out as a new object (a tail that begins a form held, or joined to the next delta)`);
}

main();
