/**
 * Gateway bench: what the gateway adds per streamed delta, against calling the mock provider
 * directly with the same answer.
 *
 *   direct:   client ──HTTP──> mock provider (dialect B)
 *   gateway:  client (dialect A) ──HTTP──> gateway ──HTTP──> mock provider (dialect B)
 *
 * Everything runs in this process on 127.0.0.1, so process CPU time covers client, gateway and
 * mock alike; the client only reads bytes (no parsing) and the mock's work is the same both
 * ways, so the difference in CPU per delta is the gateway's: decoding B, the engine's provider
 * model, encoding A, and the extra HTTP hop. Latency is measured unloaded (one request at a
 * time): time to first byte and to the last byte, p50 and p99, and the gateway's addition.
 * A second table does the same without sockets (the gateway's `fetch` calls the mock handler
 * in-process), which isolates the translation from HTTP. A third does it for non-streamed calls
 * (CPU per call; the gateway asks the provider for one body too, and passes a same-format body
 * through). Bytes: what the client reads per answer, direct and through the gateway.
 *
 * The yardstick, in the first table: what the caller's own official SDK spends parsing the
 * stream the gateway sent it (`client-parse.ts`: the same bytes replayed from memory into the SDK's
 * streaming iterator, minus reading them raw), per delta, and the gateway's added CPU per delta as a
 * multiple of it (goal: at most 1x, the gateway adds no more than the client's own parse costs). Beside
 * it, the floor of any gateway: what a bare relay (`bareRelay`: fetch and write each chunk unchanged) adds per
 * delta, and the gateway's addition as a multiple of that.
 *
 * Per delta at one answer length mixes two costs: what a call costs whatever its length (the extra HTTP hop,
 * auth, the request's translation, the upstream fetch) spread over the deltas, and what each delta costs. The
 * mock sends a whole answer in one or two socket reads, so at 200 deltas the first dominates. A second table
 * separates them: each side is measured again on answers LONG_FACTOR times as long, and the difference per extra
 * delta is what a delta costs (the gateway's addition, the SDK's parse, the bare relay's), the rest per call.
 * For a translated pair it also gives a floor under any translating gateway, per extra delta: what the bare relay
 * adds plus parsing the upstream's events (`jsonParseConsumer`: the bytes to text, framed, each event's JSON parsed;
 * nothing decoded, nothing encoded), as a multiple of the caller's SDK parse.
 *
 * Run: `pnpm bench` in packages/server (after the load bench), or
 * `node --import tsx bench/gateway.bench.ts`. Knobs: BENCH_DELTAS (200), BENCH_REQUESTS (60), BENCH_PAIRS (the pairs to run).
 * Exits non-zero only when the bench itself breaks, never because of a timing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { serve, type ServerType } from '@hono/node-server';
import { getDialect, type DialectId } from '@parlance/dialects';
import { mockProviderServer, serveMockProvider, type MockProviderServer, type ScriptedTurn } from '@parlance/testing';
import { createGateway, staticKeys } from '../src/gateway/index.ts';
import { PROVIDER } from '../test/gateway-providers.ts';
import { jsonParseConsumer, parseSplit, sdkConsumer, sdkParseMicrosPerDelta } from './client-parse.ts';
import { median, ms, percentile, table } from './stats.ts';

const DELTAS = Number(process.env.BENCH_DELTAS ?? 200);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 60);
const WARMUP = 30;
const ROUNDS = 3;
/** The long answers of the second table: this many times DELTAS, read this many times fewer per side. */
const LONG_FACTOR = 5;
const LONG = DELTAS * LONG_FACTOR;
/** The second table's rounds, and the short answers each side reads per round. */
const SPLIT_ROUNDS = Number(process.env.BENCH_SPLIT_ROUNDS ?? 21);
const SPLIT_SHORT = Number(process.env.BENCH_SPLIT_SHORT ?? 60);

/** Caller dialect -> provider dialect: one pair per caller format. `BENCH_PAIRS=ollama_chat>ollama_chat,...` runs those instead. */
const PAIRS: [DialectId, DialectId][] = process.env.BENCH_PAIRS
  ? process.env.BENCH_PAIRS.split(',').map((pair) => pair.split('>') as [DialectId, DialectId])
  : [
      ['openai_completions', 'anthropic_messages'],
      ['anthropic_messages', 'anthropic_messages'],
      ['openai_responses', 'google_gemini'],
      ['google_gemini', 'openai_completions'],
      ['ollama_chat', 'openai_responses'],
    ];

const turnOf = (deltas: number): ScriptedTurn => ({ text: Array.from({ length: deltas }, (_, i) => `word${i} `), usage: { inputTokens: 10, outputTokens: deltas } });
const TURN = turnOf(DELTAS);

/** What the caller sends the gateway; `model` names the route (`m`: DELTAS deltas, `l`: LONG). */
function callerBody(dialect: DialectId, stream = true, model = 'm'): { path: string; body: unknown } {
  switch (dialect) {
    case 'openai_completions':
      return { path: '/v1/chat/completions', body: { model, stream, messages: [{ role: 'user', content: 'hi' }] } };
    case 'openai_responses':
      return { path: '/v1/responses', body: { model, stream, input: 'hi' } };
    case 'anthropic_messages':
      return { path: '/v1/messages', body: { model, stream, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } };
    case 'google_gemini':
      return { path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } };
    case 'ollama_chat':
      return { path: '/api/chat', body: { model, stream, messages: [{ role: 'user', content: 'hi' }] } };
  }
}

/** The request the engine sends the provider (what a direct caller of dialect B sends). */
function directBody(dialect: DialectId, stream = true): { path: string; body: unknown } {
  const d = getDialect(dialect);
  return { path: d.path('m', { stream }), body: d.encodeRequest({ model: 'm', messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }, { stream }) };
}

interface Sample {
  ttfb: number;
  total: number;
  bytes: number;
}

async function timed(fetchOnce: () => Promise<Response>): Promise<Sample> {
  const start = performance.now();
  const response = await fetchOnce();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  let ttfb = NaN;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (Number.isNaN(ttfb)) ttfb = performance.now() - start;
    bytes += value.byteLength;
  }
  return { ttfb, total: performance.now() - start, bytes };
}

/** One answer's bytes, in the chunks the client read them. */
async function chunksOf(fetchOnce: () => Promise<Response>): Promise<Uint8Array[]> {
  const response = await fetchOnce();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const chunks: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

interface Run {
  samples: Sample[];
  /** CPU µs per call: the median round's. */
  callMicros: number;
}

/**
 * The direct calls and the calls through the gateway, measured alike: both warmed up, then ROUNDS rounds
 * of REQUESTS / ROUNDS calls each, alternating which goes first; a side's CPU is the median round's, scaled
 * to REQUESTS calls (run one after the other, the first row's direct calls ran with a cold JIT and came out
 * 1.5x the later rows' for the same upstream, shrinking that row's added CPU).
 */
async function pair(direct: () => Promise<Response>, through: () => Promise<Response>): Promise<[Run, Run]> {
  const sides = [direct, through];
  for (const side of sides) for (let i = 0; i < WARMUP; i++) await timed(side);
  const per = Math.ceil(REQUESTS / ROUNDS);
  const runs = sides.map(() => ({ samples: [] as Sample[], rounds: [] as number[] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const cpu = process.cpuUsage();
      for (let i = 0; i < per; i++) runs[index]!.samples.push(await timed(sides[index]!));
      const used = process.cpuUsage(cpu);
      runs[index]!.rounds.push((used.user + used.system) / per);
    }
  }
  const [a, b] = runs.map((r) => ({ samples: r.samples, callMicros: median(r.rounds) }));
  return [a!, b!];
}

/** A side of the split table: one call with a DELTAS-delta answer, one with a LONG-delta answer. */
interface SplitSide {
  short: () => Promise<unknown>;
  long: () => Promise<unknown>;
}

/**
 * CPU per extra delta and per call of each side, read in the same rounds: each round reads SPLIT_SHORT short and
 * SPLIT_SHORT / LONG_FACTOR long answers per side (the same number of deltas), and gives that round's per extra delta, (per long call - per short call) / (LONG - DELTAS), and per
 * call, the short call less DELTAS extra deltas. `difference` then takes, round by round, one side's figures less
 * another's, and the median over the rounds: the sides' drifts (the JIT, the heap) cancel within a round.
 */
async function splitCosts(sides: SplitSide[]): Promise<{ perExtra: number[]; perCall: number[] }[]> {
  const shortCalls = SPLIT_SHORT;
  const longCalls = Math.max(1, Math.round(SPLIT_SHORT / LONG_FACTOR));
  for (const side of sides) {
    for (let i = 0; i < WARMUP; i++) await side.short();
    for (let i = 0; i < Math.ceil(WARMUP / LONG_FACTOR); i++) await side.long();
  }
  const out = sides.map(() => ({ perExtra: [] as number[], perCall: [] as number[] }));
  const batch = async (call: () => Promise<unknown>, n: number) => {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await call();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  for (let round = 0; round < SPLIT_ROUNDS; round++) {
    // Rotate which side goes first.
    for (let k = 0; k < sides.length; k++) {
      const index = (round + k) % sides.length;
      const side = sides[index]!;
      const short = await batch(side.short, shortCalls);
      const long = await batch(side.long, longCalls);
      const perExtra = (long - short) / (LONG - DELTAS);
      out[index]!.perExtra.push(perExtra);
      out[index]!.perCall.push(short - DELTAS * perExtra);
    }
  }
  return out;
}

/** Round by round, `a`'s figure less `b`'s; the median of those. */
function difference(a: number[], b: number[]): number {
  return median(a.map((value, round) => value - b[round]!));
}

function post(url: string, { path, body }: { path: string; body: unknown }, headers: Record<string, string> = {}) {
  return () => fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

function listen(app: { fetch: (request: Request) => Response | Promise<Response> }): Promise<{ url: string; server: ServerType }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve({ url: `http://127.0.0.1:${info.port}`, server }));
  });
}

/**
 * The floor of any HTTP gateway: a bare `node:http` relay that sends the request on with `fetch` and writes each
 * chunk of the provider's answer to the caller unchanged (no auth, no decoding, no usage, no translation). What it
 * adds per delta is the extra hop itself (a socket read and a write per chunk, on both ends), which no gateway avoids.
 */
function bareRelay(upstream: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    void (async () => {
      const body: Buffer[] = [];
      for await (const chunk of request) body.push(chunk as Buffer);
      const answer = await fetch(upstream + request.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(body) });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/event-stream' });
      for await (const chunk of answer.body!) response.write(chunk);
      response.end();
    })().catch((error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((done) => server.close(() => done())) }),
    ),
  );
}

const perDelta = (run: Run) => run.callMicros / DELTAS;
const p = (run: Run, key: 'ttfb' | 'total', q: number) => percentile(run.samples.map((s) => s[key]), q);

async function main(): Promise<void> {
  console.log(`Gateway bench: ${DELTAS} deltas per streamed answer, ${REQUESTS} sequential requests per row and side in ${ROUNDS} alternating rounds (after ${WARMUP} warm-up), Node ${process.version}\n`);
  const httpRows = [
    ['caller -> provider', 'direct CPU µs/delta', 'gateway CPU µs/delta', 'added µs/delta', "caller SDK's parse µs/delta", 'added / SDK parse', 'bare relay added µs/delta', 'added / bare relay', 'TTFB p50 direct/gw', 'total p50 direct/gw', 'total p99 direct/gw', 'added total p50 ms', 'bytes direct/gw'],
  ];
  const memRows = [['caller -> provider (no sockets)', 'direct CPU µs/delta', 'gateway CPU µs/delta', 'added µs/delta', 'added total p50 ms']];
  const wholeRows = [['caller -> provider (not streamed, no sockets)', 'direct CPU µs/call', 'gateway CPU µs/call', 'added µs/call', 'added total p50 ms', 'bytes direct/gw']];
  const splitRows = [
    [
      'caller -> provider',
      'added µs per extra delta',
      "caller SDK's parse µs per extra delta",
      'added / SDK parse, per extra delta',
      'bare relay added µs per extra delta',
      "floor per extra delta: bare relay + the upstream's JSON parsed",
      'floor / SDK parse',
      'added µs per call (the rest)',
      "caller SDK's parse µs per call (the rest)",
      'bare relay added µs per call (the rest)',
      `chunks the caller read (${DELTAS} / ${LONG} deltas)`,
    ],
  ];
  const auth = { authorization: 'Bearer g' };
  for (const [caller, provider] of PAIRS) {
    const mock: MockProviderServer = await serveMockProvider({ dialect: provider, script: [TURN] });
    const longMock: MockProviderServer = await serveMockProvider({ dialect: provider, script: [turnOf(LONG)] });
    const gateway = createGateway({
      routes: {
        m: { ...PROVIDER[provider], model: 'm', baseURL: mock.url, apiKey: 'k', retry: false },
        l: { ...PROVIDER[provider], model: 'm', baseURL: longMock.url, apiKey: 'k', retry: false },
      },
      authorize: staticKeys({ g: { id: 'bench' } }),
    });
    const served = await listen(gateway);
    const [direct, through] = await pair(post(mock.url, directBody(provider)), post(served.url, callerBody(caller), auth));
    // The caller's SDK on what the gateway sent it (recorded once, in the chunks it arrived in).
    const sent = await chunksOf(post(served.url, callerBody(caller), auth));
    const sdkParse = await sdkParseMicrosPerDelta(caller, sent, DELTAS);
    const added = perDelta(through) - perDelta(direct);
    // The floor: the same provider's answer through a bare relay (in the provider's format), measured alike.
    const relay = await bareRelay(mock.url);
    const [directAgain, relayed] = await pair(post(mock.url, directBody(provider)), post(relay.url, directBody(provider)));
    const relayAdded = perDelta(relayed) - perDelta(directAgain);

    // The split: the same three sides on these answers and on answers LONG_FACTOR times as long (the `l` route
    // and its own mock), in the same rounds.
    const longRelay = await bareRelay(longMock.url);
    const [directSplit, gatewaySplit, relaySplit] = await splitCosts([
      { short: () => chunksOf(post(mock.url, directBody(provider))), long: () => chunksOf(post(longMock.url, directBody(provider))) },
      { short: () => chunksOf(post(served.url, callerBody(caller), auth)), long: () => chunksOf(post(served.url, callerBody(caller, true, 'l'), auth)) },
      { short: () => chunksOf(post(relay.url, directBody(provider))), long: () => chunksOf(post(longRelay.url, directBody(provider))) },
    ]);
    await longRelay.close();
    await relay.close();
    const sentLong = await chunksOf(post(served.url, callerBody(caller, true, 'l'), auth));
    const sdkSplit = await parseSplit((chunks) => sdkConsumer(caller, chunks), sent, DELTAS, sentLong, LONG);
    const addedExtra = difference(gatewaySplit!.perExtra, directSplit!.perExtra);
    const relayExtra = difference(relaySplit!.perExtra, directSplit!.perExtra);
    // A translating gateway's floor: the hop, and the upstream's events parsed (a pass-through need not parse them).
    const upstreamJson =
      caller === provider
        ? undefined
        : await parseSplit((chunks) => jsonParseConsumer(provider, chunks), await chunksOf(post(mock.url, directBody(provider))), DELTAS, await chunksOf(post(longMock.url, directBody(provider))), LONG);
    const floor = upstreamJson ? Math.max(0, relayExtra) + upstreamJson.perExtra : undefined;
    splitRows.push([
      `${caller} -> ${provider}`,
      addedExtra.toFixed(2),
      sdkSplit.perExtra.toFixed(2),
      `${(addedExtra / sdkSplit.perExtra).toFixed(2)}x`,
      relayExtra.toFixed(2),
      floor === undefined ? '(pass-through)' : floor.toFixed(2),
      floor === undefined ? '' : `${(floor / sdkSplit.perExtra).toFixed(2)}x`,
      difference(gatewaySplit!.perCall, directSplit!.perCall).toFixed(0),
      sdkSplit.perCall.toFixed(0),
      difference(relaySplit!.perCall, directSplit!.perCall).toFixed(0),
      `${sent.length} / ${sentLong.length}`,
    ]);
    await longMock.close();
    httpRows.push([
      `${caller} -> ${provider}`,
      perDelta(direct).toFixed(2),
      perDelta(through).toFixed(2),
      added.toFixed(2),
      sdkParse.toFixed(2),
      `${(added / sdkParse).toFixed(2)}x`,
      relayAdded.toFixed(2),
      `${(added / relayAdded).toFixed(2)}x`,
      `${ms(p(direct, 'ttfb', 50))}/${ms(p(through, 'ttfb', 50))}`,
      `${ms(p(direct, 'total', 50))}/${ms(p(through, 'total', 50))}`,
      `${ms(p(direct, 'total', 99))}/${ms(p(through, 'total', 99))}`,
      ms(p(through, 'total', 50) - p(direct, 'total', 50)),
      `${direct.samples[0]!.bytes}/${through.samples[0]!.bytes}`,
    ]);
    await new Promise<void>((resolve) => served.server.close(() => resolve()));
    await mock.close();

    // The same without sockets: the mock handler in-process, the gateway called as a function.
    const handler = mockProviderServer({ dialect: provider, script: [TURN] });
    const inProcess = createGateway({
      routes: { m: { ...PROVIDER[provider], model: 'm', baseURL: 'https://mock.bench', apiKey: 'k', retry: false, fetch: (input, init) => handler(new Request(input, init)) } },
      authorize: staticKeys({ g: { id: 'bench' } }),
    });
    const directRequest = directBody(provider);
    const callerRequest = callerBody(caller);
    const [directMem, throughMem] = await pair(
      async () => handler(new Request(`https://mock.bench${directRequest.path}`, { method: 'POST', body: JSON.stringify(directRequest.body) })),
      async () =>
        inProcess.request(callerRequest.path, { method: 'POST', headers: { authorization: 'Bearer g', 'content-type': 'application/json' }, body: JSON.stringify(callerRequest.body) }),
    );
    memRows.push([
      `${caller} -> ${provider}`,
      perDelta(directMem).toFixed(2),
      perDelta(throughMem).toFixed(2),
      (perDelta(throughMem) - perDelta(directMem)).toFixed(2),
      ms(p(throughMem, 'total', 50) - p(directMem, 'total', 50)),
    ]);

    // Not streamed: one JSON body asked for and answered, both ways (the gateway asks the provider
    // for one body too; a same-format pair passes the provider's body through).
    const directWhole = directBody(provider, false);
    const callerWhole = callerBody(caller, false);
    const [directOnce, throughOnce] = await pair(
      async () => handler(new Request(`https://mock.bench${directWhole.path}`, { method: 'POST', body: JSON.stringify(directWhole.body) })),
      async () =>
        inProcess.request(callerWhole.path, { method: 'POST', headers: { authorization: 'Bearer g', 'content-type': 'application/json' }, body: JSON.stringify(callerWhole.body) }),
    );
    wholeRows.push([
      `${caller} -> ${provider}${caller === provider ? ' (pass-through)' : ''}`,
      directOnce.callMicros.toFixed(0),
      throughOnce.callMicros.toFixed(0),
      (throughOnce.callMicros - directOnce.callMicros).toFixed(0),
      ms(p(throughOnce, 'total', 50) - p(directOnce, 'total', 50)),
      `${directOnce.samples[0]!.bytes}/${throughOnce.samples[0]!.bytes}`,
    ]);
  }
  console.log(`Over HTTP on 127.0.0.1 (client, gateway and mock in one process; CPU = process user+system time; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}):`);
  console.log(table(httpRows));
  console.log(
    `\nPer extra delta and per call: each side reads ${DELTAS}- and ${LONG}-delta answers in the same rounds (${SPLIT_ROUNDS} rounds of ${SPLIT_SHORT} and ${SPLIT_SHORT / LONG_FACTOR} calls); per extra delta = (CPU per call at ${LONG} - at ${DELTAS}) / ${LONG - DELTAS}, per call = the CPU at ${DELTAS} less ${DELTAS} extra deltas; added = through it less direct, round by round, median`,
  );
  console.log(table(splitRows));
  console.log('\nIn process (no sockets): the translation alone');
  console.log(table(memRows));
  console.log('\nNot streamed, in process: one JSON body per call (bytes: the answer the caller reads)');
  console.log(table(wholeRows));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('BENCH FAILED:', error);
    process.exit(1);
  },
);
