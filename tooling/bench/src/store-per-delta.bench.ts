/**
 * Per-delta cost inside the client store, without the network and SSE parsing that
 * compare.bench.ts includes: the same pre-parsed events dispatched into `chatReducer` (what
 * `ChatStore` runs per frame), beside the bare protocol fold (`reduceEvents`), at 0, 1,000
 * and 10,000 prior messages. Interleaved rounds, medians; nothing is asserted.
 */
// The reducer is internal to @parlance/client: reached by path, as tests do.
import { chatReducer, initialChatState, settle, type ChatState } from '../../../packages/client/src/chat-reducer.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createFoldState, reduceEvents, type Event, type Message } from '@parlance/protocol';

const DELTAS = 20_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const prior = (count: number): Message[] =>
  Array.from({ length: count }, (_, i) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: `message ${i}` }] }));

const events: Event[] = [
  { type: 'step-start', step: 0 },
  { type: 'message-start', messageId: 'a_new' },
  { type: 'text-start', id: 't0' },
  ...Array.from({ length: DELTAS }, (_, i): Event => ({ type: 'text-delta', id: 't0', delta: `w${i} ` })),
  { type: 'text-end', id: 't0' },
];

function store(messages: Message[]): number {
  let state: ChatState = initialChatState({ thread: { version: 2, id: 'th', messages }, status: 'ready', pending: [], queue: [], quarantined: [] } as unknown as ChatState);
  state = chatReducer(state, { type: 'run', runId: 'run_b' });
  const start = process.hrtime.bigint();
  let seq = 0;
  for (const event of events) {
    state = chatReducer(state, { type: 'event', event, id: String(seq++) });
    // ChatStore publishes (settles) once per animation frame; 60 frames a second at ~1 event per 0.1 ms is one per ~160 events.
    if (seq % 160 === 0) state = settle(state);
  }
  state = settle(state);
  const ns = Number(process.hrtime.bigint() - start);
  if (!state.thread.messages.at(-1)?.parts.length) throw new Error('the reply was not folded');
  return ns / DELTAS / 1000;
}

function fold(messages: Message[]): number {
  let state = createFoldState(messages);
  const start = process.hrtime.bigint();
  for (const event of events) state = reduceEvents(state, event);
  const ns = Number(process.hrtime.bigint() - start);
  if (state.messages.length !== messages.length + 1) throw new Error('the reply was not folded');
  return ns / DELTAS / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const lines = [`Client store per delta (pre-parsed events, ${DELTAS.toLocaleString('en')} deltas, median of ${ROUNDS}; µs per delta)`, 'prior messages   chatReducer   bare fold   store / fold   store vs 0 prior'];
console.log(`\n${lines.join('\n')}`);
// Warm up the JIT on both paths before anything is measured.
for (let i = 0; i < 3; i++) {
  store(prior(10));
  fold(prior(10));
}
let base: number | undefined;
for (const count of [0, 1_000, 10_000]) {
  const messages = prior(count);
  const s: number[] = [];
  const f: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2) {
      s.push(store(messages));
      f.push(fold(messages));
    } else {
      f.push(fold(messages));
      s.push(store(messages));
    }
  }
  const ms = median(s);
  const mf = median(f);
  base ??= ms;
  const line = `${String(count).padStart(14)}   ${ms.toFixed(2).padStart(11)}   ${mf.toFixed(2).padStart(9)}   ${(ms / mf).toFixed(2).padStart(11)}x   ${(ms / base).toFixed(2).padStart(15)}x`;
  console.log(line);
  lines.push(line);
}
const out = new URL('../results/', import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(new URL('store-per-delta.md', out), `\`\`\`\n${lines.join('\n')}\n\`\`\`\n`);
