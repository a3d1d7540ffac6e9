/**
 * Where a streamed delta's server CPU goes, stage by stage, beside the floor's three steps. Each
 * stage runs alone over the same 20,000 recorded text deltas (tooling/bench's realistic-deltas.ts),
 * in interleaved rounds in one process; CPU time (user + system) per delta, median and range:
 *
 *   decode  the upstream's Chat Completions SSE (4 KiB chunks) through the framer and decoder
 *   engine  `createEngine().streamChat` over a model that yields the decoded events (minus the model's own iteration)
 *   scrub   the run's secret scrubber (`createScrubber(...).push`), four secrets
 *   sign    `ThreadTrust.eventSigner` as the server calls it, one event at a time (it folds what signing needs:
 *           every event but the deltas of an open block, whose text it folds once per block)
 *   store   `createMemoryRunStore().append`, awaited, as executeRun does
 *   frame   `formatSseFrame` with the resumable id rule, then UTF-8 encoding
 *   write   one frame written to a loopback socket that this process also reads
 *
 * The floor (what any server does per delta): parse one upstream chunk's JSON, stringify one event,
 * write it. Pipeline costs between the stages (async generators, promise hops, coalescing) are not in
 * any row: the end-to-end figure is compare.bench.ts's "server CPU per extra delta".
 * Run: `pnpm bench` or `node --import tsx bench/stages.bench.ts`. Prints numbers; never fails on a timing.
 */
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { createFramer, getClientDialect } from '@parlance/dialects';
import { createEngine, createThreadTrust } from '@parlance/engine';
import { createThread, type Event, formatEventId, formatSseFrame, type LanguageModel, sendsEventId } from '@parlance/protocol';
import { encodeEvents } from '@parlance/testing';
import { realisticDeltas } from '../../../tooling/bench/src/realistic-deltas.ts';
import { createMemoryRunStore } from '../src/memory-run-store.ts';
import { createScrubber } from '../src/scrub.ts';

const DELTAS = Number(process.env.BENCH_STAGE_DELTAS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_STAGE_ROUNDS ?? 9);
const SECRETS = ['sk-proj-Zx81kQ0c4mP9vT2rW7yH3nB6dF5gJ1aL0sE8uI4oK2qR9tY7wX3zC6vB1nM5', 'sk-ant-api03-Hq7Lw2Xc9Vb4Nm1Kj8Gf5Ds3Ap6Zo0Iu-AAAA', 'bench-signing-secret-0123456789abcdef0123456789abcdef', 'Bearer gw_live_5f3e9a1c7b2d4e6f8091a2b3c4d5e6f7'];

const deltas = realisticDeltas(DELTAS);
const modelEvents: Event[] = [
  { type: 'message-start' },
  { type: 'text-start', id: 't0' },
  ...deltas.map((delta): Event => ({ type: 'text-delta', id: 't0', delta })),
  { type: 'text-end', id: 't0' },
  { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: DELTAS } },
];
const wire = encodeEvents('openai_completions', modelEvents);
const chunks: string[] = [];
for (let at = 0; at < wire.length; at += 4096) chunks.push(wire.slice(at, at + 4096));
const thread = createThread('th_bench', [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }]);

/** What the engine emits for this reply (the events every later stage sees). */
const engineOf = () => createEngine({ resolveModel: () => model() });
function model(): LanguageModel {
  return {
    provider: 'bench',
    modelId: 'bench',
    dialect: 'openai_completions',
    async *stream() {
      for (const event of modelEvents) yield event;
    },
  } as LanguageModel;
}
const runEvents: Event[] = [];
for await (const event of engineOf().streamChat({ thread, model: 'bench' })) runEvents.push(event);

let sink = 0;
const stages: Record<string, () => Promise<void> | void> = {
  decode() {
    const framer = createFramer('sse');
    const decoder = getClientDialect('openai_completions').createDecoder({});
    for (const chunk of chunks) for (const w of framer.push(chunk)) sink += decoder.push(w).length;
  },
  async 'engine (model iteration)'() {
    for await (const _ of model().stream({} as never)) sink++;
  },
  async engine() {
    for await (const _ of engineOf().streamChat({ thread, model: 'bench' })) sink++;
  },
  scrub() {
    const scrub = createScrubber(SECRETS);
    const released: Event[] = [];
    for (const event of runEvents) {
      if (scrub.push(event, released) !== undefined) sink++;
      released.length = 0;
    }
  },
  async sign() {
    const signer = createThreadTrust({ secret: SECRETS[2]! }).eventSigner(thread);
    const out: Event[] = [];
    for (const event of runEvents) {
      const signing = signer.push(event, out);
      if (signing) await signing;
      sink += out.length;
      out.length = 0;
    }
  },
  async store() {
    const store = createMemoryRunStore();
    const { run } = await store.create({ id: `run_${sink}`, requestKey: `k${sink}`, createdAt: Date.now() });
    for (const event of runEvents) sink += (await store.append(run.id, event)).seq;
  },
  frame() {
    const encoder = new TextEncoder();
    let seq = 0;
    for (const event of runEvents) {
      sink += encoder.encode(formatSseFrame(event, sendsEventId(event, seq, seq === 0) ? formatEventId(seq) : undefined)).length;
      seq++;
    }
  },
  async write() {
    for (const frame of frames) if (!client.write(frame)) await once(client, 'drain');
    await flushed();
  },
  'floor: parse'() {
    let held = '';
    for (const chunk of chunks) {
      const lines = (held + chunk).split('\n');
      held = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('data: {')) sink += JSON.parse(line.slice(6)) ? 1 : 0;
    }
  },
  'floor: stringify'() {
    for (const delta of deltas) sink += JSON.stringify({ type: 'text-delta', delta }).length;
  },
};

// The loopback socket the write stage writes to (this process reads it too, as the floor does).
const frames = runEvents.map((event, seq) => new TextEncoder().encode(formatSseFrame(event, formatEventId(seq))));
const total = frames.reduce((sum, f) => sum + f.length, 0);
let received = 0;
let onReceived: (() => void) | undefined;
const server = createServer((socket: Socket) => {
  socket.on('data', (data) => {
    received += data.length;
    if (received >= total && onReceived) onReceived();
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
await once(client, 'connect');
const flushed = () =>
  new Promise<void>((resolve) => {
    if (received >= total) {
      received -= total;
      return resolve();
    }
    onReceived = () => {
      onReceived = undefined;
      received -= total;
      resolve();
    };
  });

const cpuMicros = async (run: () => Promise<void> | void) => {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
};
const names = Object.keys(stages);
const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let round = -2; round < ROUNDS; round++) {
  const order = round % 2 ? [...names].reverse() : names;
  for (const name of order) {
    const micros = await cpuMicros(stages[name]!);
    if (round >= 0) times[name]!.push(micros / DELTAS);
  }
}
client.destroy();
server.close();

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const at = (name: string) => median(times[name]!);
const cell = (v: number[]) => `${median(v).toFixed(2)} (${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)})`;
const minus = (a: string, b: string) => times[a]!.map((x, i) => x - times[b]![i]!);
const rows: [string, number[]][] = [
  ['decode', times.decode!],
  ['engine', minus('engine', 'engine (model iteration)')],
  ['scrub', times.scrub!],
  ['sign', times.sign!],
  ['store', times.store!],
  ['frame', times.frame!],
  ['write', times.write!],
];
const sum = rows.reduce((s, [, v]) => s + median(v), 0);
const floor = at('floor: parse') + at('floor: stringify') + at('write');
console.log(`\nServer CPU per delta by stage (${DELTAS.toLocaleString('en')} recorded deltas, ${ROUNDS} interleaved rounds; µs per delta, median (min–max))${sink > 0 ? '' : ' ?'}`);
for (const [name, v] of rows) console.log(`  ${name.padEnd(8)} ${cell(v)}`);
console.log(`  ${'sum'.padEnd(8)} ${sum.toFixed(2)}`);
console.log(`  floor    ${floor.toFixed(2)}  (parse ${at('floor: parse').toFixed(2)} + stringify ${at('floor: stringify').toFixed(2)} + write ${at('write').toFixed(2)}); stages / floor ${(sum / floor).toFixed(2)}x`);
