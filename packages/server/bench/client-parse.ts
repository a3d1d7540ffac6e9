/**
 * What a caller's own official SDK spends parsing a streamed answer, for gateway.bench.ts: the
 * issue's yardstick for the gateway ("the gateway adds no more than the client's own parse costs").
 *
 * The SDK gets the bytes the gateway sent the caller (recorded once, in the chunks they arrived in)
 * from a `fetch` that answers them from memory (no network), and its streaming iterator is run to the
 * end, as an application consumes it: `openai` (`chat.completions.create` / `responses.create` with
 * `stream: true`), `@anthropic-ai/sdk` (`messages.create` with `stream: true`), `@google/genai`
 * (`models.generateContentStream`) and `ollama` (`chat` with `stream: true`). Reading the same
 * Response without parsing is measured the same way and taken off, so what is left is the SDK's
 * own work: decoding the bytes, framing, JSON, building its chunk objects, and its per-call setup
 * (spread over the deltas, as the gateway's per-call work is in its column).
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { createFramer, type DialectId, getDialect } from '@parlance/dialects';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { median } from './stats.ts';

/** A fetch that answers every call with `chunks` as a streamed body. */
function replaying(chunks: readonly Uint8Array[], contentType: string): typeof fetch {
  return async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      }),
      { status: 200, headers: { 'content-type': contentType } },
    );
}

/** One streamed call through the caller's SDK; resolves with the number of items its iterator gave. */
type Consume = () => Promise<number>;

async function count(iterable: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of iterable) n++;
  return n;
}

/**
 * The caller's SDK reading `chunks` (what the gateway sent it), as one call.
 *
 * @example
 * const consume = sdkConsumer('anthropic_messages', chunks);
 * await consume(); // the number of stream events the SDK handed out
 */
export function sdkConsumer(dialect: DialectId, chunks: readonly Uint8Array[]): Consume {
  const sse = replaying(chunks, 'text/event-stream');
  const messages = [{ role: 'user' as const, content: 'hi' }];
  switch (dialect) {
    case 'openai_completions': {
      const client = new OpenAI({ apiKey: 'k', baseURL: 'http://sdk.bench/v1', fetch: sse, maxRetries: 0 });
      return async () => count(await client.chat.completions.create({ model: 'm', messages, stream: true }));
    }
    case 'openai_responses': {
      const client = new OpenAI({ apiKey: 'k', baseURL: 'http://sdk.bench/v1', fetch: sse, maxRetries: 0 });
      return async () => count(await client.responses.create({ model: 'm', input: 'hi', stream: true }));
    }
    case 'anthropic_messages': {
      const client = new Anthropic({ apiKey: 'k', baseURL: 'http://sdk.bench', fetch: sse, maxRetries: 0 });
      return async () => count(await client.messages.create({ model: 'm', max_tokens: 10, messages, stream: true }));
    }
    case 'google_gemini': {
      // @google/genai takes no fetch of its own: the global one is swapped for the call.
      const client = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: 'http://sdk.bench' } });
      return async () => {
        const saved = globalThis.fetch;
        globalThis.fetch = sse;
        try {
          return count(await client.models.generateContentStream({ model: 'm', contents: 'hi' }));
        } finally {
          globalThis.fetch = saved;
        }
      };
    }
    case 'ollama_chat': {
      const client = new Ollama({ host: 'http://sdk.bench', fetch: replaying(chunks, 'application/x-ndjson') });
      return async () => count(await client.chat({ model: 'm', messages, stream: true }));
    }
  }
}

/**
 * Reading the same Response's bytes without parsing them (what the bench's own client does): the
 * part of `sdkConsumer`'s CPU that is not the SDK's.
 *
 * @example
 * await rawConsumer(chunks)(); // the number of chunks read
 */
export function rawConsumer(chunks: readonly Uint8Array[]): Consume {
  const fetchFn = replaying(chunks, 'text/event-stream');
  return async () => {
    const reader = (await fetchFn('http://sdk.bench')).body!.getReader();
    let n = 0;
    while (!(await reader.read()).done) n++;
    return n;
  };
}

async function cpuPerCall(consume: Consume, calls: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await consume();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

/**
 * CPU µs per delta the SDK spends on `chunks` (an answer of `deltas` deltas), over `calls` calls
 * after `warmup`: the SDK's reading minus the raw reading, each the median of `rounds`
 * interleaved rounds.
 *
 * @example
 * const micros = await sdkParseMicrosPerDelta('openai_completions', chunks, 200);
 */
export async function sdkParseMicrosPerDelta(dialect: DialectId, chunks: readonly Uint8Array[], deltas: number, calls = 60, warmup = 20, rounds = 3): Promise<number> {
  const sdk = sdkConsumer(dialect, chunks);
  const raw = rawConsumer(chunks);
  const first = await sdk();
  if (first < deltas) throw new Error(`${dialect}: the SDK handed out ${first} items for ${deltas} deltas`);
  for (let i = 0; i < warmup; i++) await Promise.all([sdk(), raw()]);
  const sdkRuns: number[] = [];
  const rawRuns: number[] = [];
  for (let round = 0; round < rounds; round++) {
    sdkRuns.push(await cpuPerCall(sdk, calls));
    rawRuns.push(await cpuPerCall(raw, calls));
  }
  return (median(sdkRuns) - median(rawRuns)) / deltas;
}

/**
 * The least a gateway that translates must do with each event of the upstream's stream, and nothing more: the bytes
 * decoded to text, split into events (the dialects' framer), and each event's JSON parsed. No decoder state, no
 * protocol events, no encoding for the caller: with what a bare relay adds, a floor under any translating gateway.
 *
 * @example
 * await jsonParseConsumer('openai_responses', chunks)(); // the number of events parsed
 */
export function jsonParseConsumer(dialect: DialectId, chunks: readonly Uint8Array[]): Consume {
  const fetchFn = replaying(chunks, 'text/event-stream');
  const framing = getDialect(dialect).framing;
  return async () => {
    const reader = (await fetchFn('http://sdk.bench')).body!.getReader();
    const text = new TextDecoder();
    const framer = createFramer(framing);
    let n = 0;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      for (const wire of framer.push(text.decode(read.value, { stream: true }))) if (wire.data !== '[DONE]' && wire.data.trim() !== '' && JSON.parse(wire.data)) n++;
    }
    return n;
  };
}

/**
 * A parser's CPU split into what each delta costs and what is left per call: `consumer` (the caller's SDK,
 * `sdkConsumer`, or the floor's `jsonParseConsumer`) on a short and a long answer (`short` and `long`, the chunks of
 * answers of `shortDeltas` and `longDeltas` deltas), read in the same rounds (the same number of deltas each), each
 * less the raw reading of the same chunks; per round, per extra delta = the difference per call / the extra deltas,
 * per call = the short call less its deltas; the medians.
 *
 * @example
 * const { perExtra, perCall } = await parseSplit((chunks) => sdkConsumer('ollama_chat', chunks), chunks200, 200, chunks1000, 1000);
 */
export async function parseSplit(
  consumer: (chunks: readonly Uint8Array[]) => Consume,
  short: readonly Uint8Array[],
  shortDeltas: number,
  long: readonly Uint8Array[],
  longDeltas: number,
  { calls = 40, rounds = 11 } = {},
): Promise<{ perExtra: number; perCall: number }> {
  const sides = [short, long].map((chunks) => ({ parse: consumer(chunks), raw: rawConsumer(chunks) }));
  const counts = [calls, Math.max(1, Math.round((calls * shortDeltas) / longDeltas))];
  for (const side of sides) for (let i = 0; i < 20; i++) await Promise.all([side.parse(), side.raw()]);
  const perExtra: number[] = [];
  const perCall: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const parse: number[] = [];
    for (const [index, side] of sides.entries()) {
        const parsed = await cpuPerCall(side.parse, counts[index]!);
      const raw = await cpuPerCall(side.raw, counts[index]!);
      parse.push(parsed - raw);
    }
    const extra = (parse[1]! - parse[0]!) / (longDeltas - shortDeltas);
    perExtra.push(extra);
    perCall.push(parse[0]! - shortDeltas * extra);
  }
  return { perExtra: median(perExtra), perCall: median(perCall) };
}
