/**
 * embedMany of 10,000 inputs against a local server answering OpenAI's embeddings wire
 * format (1,536 dimensions, base64 as OpenAI's SDKs ask, or float JSON as
 * OpenAI-compatible servers return), in its own process, with a fixed latency per
 * request standing in for the network and the model. Beside it, a bare loop: the same batches through `fetch`
 * alone, JSON.parse and a Float32Array per vector, at the same concurrency. What it
 * shows: how many requests were made, how concurrency hides latency, and what the
 * library's own work (batching, transport, order, decoding) costs over the bare loop.
 * Run: `pnpm bench` (BENCH_RUNS=n to change the number of measured runs).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type EmbeddingModel, embedMany, openaiCompatibleEmbeddingModel, openaiEmbeddingModel } from '../src/index.ts';

const INPUTS = 10_000;
const DIMENSIONS = 1536;
const LATENCY_MS = 25;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BATCH = 2048;

async function startServer(): Promise<{ url: string; requests: () => Promise<number>; close: () => void }> {
  const child = fork(fileURLToPath(new URL('./embeddings-server.mjs', import.meta.url)), {
    env: { ...process.env, DIMENSIONS: String(DIMENSIONS), LATENCY_MS: String(LATENCY_MS) },
  });
  const next = () => new Promise<Record<string, unknown>>((resolve) => child.once('message', (m) => resolve(m as Record<string, unknown>)));
  const { url } = (await next()) as { url: string };
  return {
    url,
    requests: async () => {
      const reply = next();
      child.send('count');
      return (await reply).requests as number;
    },
    close: () => child.disconnect(),
  };
}

/** The same batches with fetch alone: POST, JSON.parse, a Float32Array per vector, order by index. */
async function bareLoop(url: string, values: string[], concurrency: number, base64: boolean): Promise<number> {
  const out: Float32Array[] = new Array(values.length);
  const starts: number[] = [];
  for (let s = 0; s < values.length; s += BATCH) starts.push(s);
  let next = 0;
  const worker = async () => {
    while (next < starts.length) {
      const start = starts[next++]!;
      const input = values.slice(start, start + BATCH);
      const response = await fetch(`${url}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: JSON.stringify({ model: 'text-embedding-3-small', input, ...(base64 ? { encoding_format: 'base64' } : {}) }),
      });
      const body = (await response.json()) as { data: { index: number; embedding: string | number[] }[] };
      for (const item of body.data) {
        const e = item.embedding;
        out[start + item.index] = typeof e === 'string' ? new Float32Array(Buffer.from(e, 'base64').buffer.slice(0)) : Float32Array.from(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, starts.length) }, worker));
  return out.length;
}

async function time(run: () => Promise<unknown>): Promise<number> {
  await run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

async function main(): Promise<void> {
  const server = await startServer();
  const values = Array.from({ length: INPUTS }, (_, i) => `document ${i}: a short passage of text to embed`);
  const models: [string, EmbeddingModel, boolean][] = [
    ['openai (base64)', openaiEmbeddingModel('text-embedding-3-small', { baseURL: server.url, apiKey: 'k' }), true],
    ['compatible (float JSON)', openaiCompatibleEmbeddingModel('m', { baseURL: server.url, env: {} }), false],
  ];
  console.log(`embedMany: ${INPUTS} inputs x ${DIMENSIONS} dimensions, ${LATENCY_MS} ms per request, median of ${RUNS} runs`);
  console.log('| format | concurrency | batches | embedMany ms | bare fetch loop ms | ratio |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [label, model, base64] of models) {
    for (const concurrency of [1, 4, 8]) {
      let batches = 0;
      const before = await server.requests();
      const ours = await time(async () => {
        const result = await embedMany(model, { values, maxConcurrency: concurrency });
        if (result.embeddings.length !== INPUTS || result.embeddings[INPUTS - 1]!.length !== DIMENSIONS) throw new Error('wrong result');
        batches = result.batches;
      });
      const requests = ((await server.requests()) - before) / (RUNS + 1);
      if (requests !== batches) throw new Error(`expected ${batches} requests a run, saw ${requests}`);
      const bare = await time(() => bareLoop(server.url, values, concurrency, base64));
      console.log(`| ${label} | ${concurrency} | ${batches} | ${ours.toFixed(0)} | ${bare.toFixed(0)} | ${(ours / bare).toFixed(2)}x |`);
    }
  }
  server.close();
}

await main();
