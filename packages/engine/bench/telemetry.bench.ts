/**
 * What tracing costs per streamed delta. The same chat run (one model response of
 * DELTAS text deltas, then a tool call and a second response) side by side:
 *
 *   off          `telemetry: false`: the loop as it was before instrumentation
 *   off again    the same, a second time: the noise between two identical runs
 *   no tracer    the default, with no tracer provider registered (what most users run)
 *   SDK tracer   a real @opentelemetry/sdk-trace-base provider recording every span
 *
 * Rounds are interleaved so drift (JIT, GC, other processes on the machine) hits every
 * mode alike; the table shows the median ns per delta. "no tracer" is meant to be within
 * the off/off-again spread. Nothing here asserts a time. Run: `pnpm bench` (BENCH_RUNS=n).
 */
import { trace } from '@opentelemetry/api';
import type { Event, LanguageModel } from '@parlance/protocol';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { createEngine, tool, type EngineOptions } from '../src/index.ts';

const DELTAS = 20_000;
const WARMUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

function answer(deltas: number, call: boolean): Event[] {
  const events: Event[] = [{ type: 'message-start' }, { type: 'text-start', id: 't' }];
  for (let i = 0; i < deltas; i++) events.push({ type: 'text-delta', id: 't', delta: `w${i % 100} ` });
  events.push({ type: 'text-end', id: 't' });
  if (call) {
    events.push({ type: 'tool-call-start', id: 'c1', name: 'lookup' }, { type: 'tool-call-end', id: 'c1', input: { q: 'x' } });
  }
  events.push({ type: 'finish', finishReason: call ? 'tool-calls' : 'stop', usage: { inputTokens: 10, outputTokens: deltas } });
  return events;
}

const first = answer(DELTAS, true);
const second = answer(DELTAS, false);

/** A model that replays prepared events with no timers: the loop is all that is measured. */
function replayModel(): LanguageModel {
  let call = 0;
  return {
    provider: 'bench',
    modelId: 'replay',
    dialect: 'bench',
    async *stream() {
      yield* call++ % 2 === 0 ? first : second;
    },
  };
}

const lookup = tool({ name: 'lookup', input: z.object({ q: z.string() }), execute: ({ q }) => ({ q, hits: 1 }) });

const exporter = new InMemorySpanExporter();
const sdk = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const modes: { name: string; options: Partial<EngineOptions> }[] = [
  { name: 'off (telemetry: false)', options: { telemetry: false } },
  { name: 'off again', options: { telemetry: false } },
  { name: 'no tracer registered', options: {} },
  { name: 'SDK tracer recording', options: { telemetry: { tracer: sdk.getTracer('bench') } } },
];

async function once(options: Partial<EngineOptions>): Promise<number> {
  const engine = createEngine({ model: replayModel(), tools: [lookup], ...options });
  const start = process.hrtime.bigint();
  let deltas = 0;
  for await (const event of engine.streamChat({ prompt: 'go' })) if (event.type === 'text-delta') deltas++;
  const ns = Number(process.hrtime.bigint() - start);
  exporter.reset();
  if (deltas !== 2 * DELTAS) throw new Error(`expected ${2 * DELTAS} deltas, got ${deltas}`);
  return ns / deltas;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

if (trace.getTracerProvider().getTracer('probe').startSpan('probe').isRecording()) throw new Error('a tracer is registered globally');
const samples = modes.map(() => [] as number[]);
for (let round = 0; round < WARMUP + RUNS; round++) {
  for (let m = 0; m < modes.length; m++) {
    const perDelta = await once(modes[m]!.options);
    if (round >= WARMUP) samples[m]!.push(perDelta);
  }
}
const base = median(samples[0]!);
console.log(`Per-delta cost of a chat run (${2 * DELTAS} deltas over 2 steps and a tool call; median of ${RUNS} interleaved runs)`);
console.log('mode                      ns/delta   vs off    min..max ns/delta');
for (let m = 0; m < modes.length; m++) {
  const values = samples[m]!;
  const med = median(values);
  const ratio = `${med >= base ? '+' : ''}${(((med - base) / base) * 100).toFixed(1)}%`;
  console.log(
    `${modes[m]!.name.padEnd(24)} ${med.toFixed(0).padStart(9)} ${ratio.padStart(8)}    ${Math.min(...values).toFixed(0)}..${Math.max(...values).toFixed(0)}`,
  );
}
