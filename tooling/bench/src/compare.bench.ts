/**
 * Parlance beside the AI SDK and the floor, in one run: `pnpm bench` (node --expose-gc --import tsx src/compare.bench.ts).
 *
 *   this process: load generator + client stores ──HTTP──> child: Parlance server ──HTTP──> this process: mock upstream
 *                                                 ──HTTP──> child: AI SDK server  ──HTTP──┤   (OpenAI and Anthropic wire)
 *                                                 ──HTTP──> child: floor server   ──HTTP──┘
 *
 * The three servers run in their own processes (server-process.ts) against the same mock upstream
 * (`@parlance/testing`'s serveMockProvider, the dialects' real wire encoders), on 127.0.0.1. The
 * floor (floor-server.ts) parses each upstream event, stringifies one event and writes it: what
 * any server must do per delta. The upstream sends what users get: recorded word-sized deltas
 * (realistic-deltas.ts), short and long replies, paced (1 ms apart) and not, and tool round trips.
 * Every measure runs in rounds that alternate which system goes first; the table shows the
 * median and (min–max) over the rounds and the ratio of medians. Nothing here asserts a time:
 * the bench exits non-zero only when it breaks (a failed chat, a crash, the global timeout).
 * Knobs: BENCH_ROUNDS (5), BENCH_QUICK=1 (fewer and smaller rounds, to check the bench runs),
 * BENCH_ONLY=client (the client measures only), BENCH_ONLY=per-delta (the server CPU per extra delta only), BENCH_CONCURRENCY (200: the concurrency step, the
 * heaviest, bounded on a loaded machine), BENCH_TIMEOUT_MIN (30). The table is also written to results/latest.md;
 * `pnpm --filter @parlance/bench readme` copies it into the README (update-readme.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Chat } from '@ai-sdk/react';
import { ChatStore } from '@parlance/client';
import { LEAN_WIRE_ACCEPT, type Message } from '@parlance/protocol';
import { type MockScript, serveMockProvider } from '@parlance/testing';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { bundleSizes } from './bundle-size.ts';
import { realisticDeltas } from './realistic-deltas.ts';
import type { FromServer, ToServer } from './server-process.ts';
import { type Row, kb, mb, median, ms, quantile, ratio, spread, table, us } from './stats.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 2 : 5));
/** Streams at once in the concurrency step, the heaviest: BENCH_CONCURRENCY bounds it on a loaded machine (the row names the count). */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? (QUICK ? 50 : 200));
/** A safety net (a hung chat), not a budget: a full run takes a few minutes on an idle 2-core machine (BENCH_TIMEOUT_MIN). */
const GLOBAL_TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MIN ?? 30) * 60_000;
/** Server CPU per extra delta: each round runs EXTRA_CHATS chats of EXTRA_DELTAS deltas, then as many of twice that. */
const EXTRA_DELTAS = 1000;
const EXTRA_CHATS = QUICK ? 1 : 3;
const EXTRA_ROUNDS = QUICK ? 2 : Math.max(ROUNDS, 11);
const REQUEST_TIMEOUT_MS = 60_000;
type System = 'parlance' | 'aisdk' | 'floor';
type Wire = 'openai' | 'anthropic';
const SYSTEMS: System[] = ['parlance', 'aisdk', 'floor'];
/** Client-side measures that need a chat store (React, the per-delta store cost) compare these two. */
const STORES: System[] = ['parlance', 'aisdk'];
/** Paced upstreams send one delta per this many ms. */
const PACE_MS = 1;

const deadline = setTimeout(() => {
  console.error(`\nBENCH ABORTED: not finished within ${GLOBAL_TIMEOUT_MS / 1000} s`);
  process.exit(2);
}, GLOBAL_TIMEOUT_MS);

const hasToolResult = (body: unknown) => /"tool_result"|"role":"tool"/.test(JSON.stringify(body));
/**
 * The model id names the scenario: dN (N text deltas), pN (N deltas, PACE_MS apart), c50 (50 deltas,
 * 2 ms apart), tool (a call, then 20 deltas). Text is recorded provider deltas (realistic-deltas.ts).
 */
const script: MockScript = (request) => {
  const model = request.model ?? '';
  if (model === 'tool')
    return hasToolResult(request.body) ? { text: realisticDeltas(20), usage: { inputTokens: 5, outputTokens: 20 } } : { toolCalls: [{ id: 'call_1', name: 'weather', input: { city: 'Rome' } }], usage: { inputTokens: 5, outputTokens: 8 } };
  if (model === 'c50') return { text: realisticDeltas(50), delayMs: 2, usage: { inputTokens: 5, outputTokens: 50 } };
  const count = Number(model.slice(1)) || 1;
  return { text: realisticDeltas(count), ...(model.startsWith('p') ? { delayMs: PACE_MS } : {}), usage: { inputTokens: 5, outputTokens: count } };
};

const children: ChildProcess[] = [];
function next<T extends FromServer['type']>(child: ChildProcess, type: T): Promise<Extract<FromServer, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromServer) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<FromServer, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`A server process exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
const ask = <T extends FromServer['type']>(child: ChildProcess, message: ToServer, reply: T) => {
  const answer = next(child, reply);
  child.send(message);
  return answer;
};

interface ChatResult {
  bytes: number;
  wallMs: number;
  ttftMs: number;
  runId: string | null;
  chunks: Uint8Array[];
}

const priorParlance = (count: number): Message[] =>
  Array.from({ length: count }, (_, i) => ({ id: `p${i}`, role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: `earlier message ${i}` }] }));
const priorUi = (count: number): UIMessage[] =>
  Array.from({ length: count }, (_, i) => ({ id: `p${i}`, role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: `earlier message ${i}` }] }));

let chatId = 0;
async function chat(url: string, system: System, wire: Wire, model: string, options: { prior?: number; keep?: boolean } = {}): Promise<ChatResult> {
  const id = `b${chatId++}`;
  const prior = options.prior ?? 0;
  const body =
    system === 'parlance'
      ? { clientRequestId: id, model: `${wire}:${model}`, thread: { version: 1, id: `th_${id}`, messages: [...priorParlance(prior), { id: `u_${id}`, role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] } }
      : system === 'aisdk'
        ? { id: `th_${id}`, model, wire, trigger: 'submit-message', messages: [...priorUi(prior), { id: `u_${id}`, role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] }
        : { model, wire, messages: [...Array.from({ length: prior }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: `earlier message ${i}` })), { role: 'user', text: 'Hello' }] };
  const start = performance.now();
  // Parlance's client asks for the lean wire (LEAN_WIRE_ACCEPT), as @parlance/client's postChat does.
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(system === 'parlance' ? { accept: LEAN_WIRE_ACCEPT } : {}) };
  const init = { method: 'POST', headers, body: JSON.stringify(body) };
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch {
    // A pooled connection the server closed as idle (its keep-alive timeout) just as it was reused: once more.
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  }
  if (!response.ok || !response.body) throw new Error(`${system} ${wire} ${model}: HTTP ${response.status} ${await response.text()}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let ttftMs = Number.NaN;
  const marker = system === 'parlance' ? 'chat-finish' : '"type":"finish"';
  let finished = false;
  let tail = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (options.keep) chunks.push(value);
    const text = decoder.decode(value, { stream: true });
    if (Number.isNaN(ttftMs) && text.includes('text-delta')) ttftMs = performance.now() - start;
    const window = tail.slice(-32) + text;
    if (!finished && window.includes(marker)) finished = true;
    tail = window.slice(-512);
  }
  if (!finished) throw new Error(`${system} ${wire} ${model}: the stream ended without its finish (…${tail.slice(-300)})`);
  return { bytes, wallMs: performance.now() - start, ttftMs, runId: response.headers.get('x-parlance-run-id'), chunks };
}

/** Rounds rotate which system goes first. */
const order = (round: number, systems: System[] = SYSTEMS): System[] => systems.map((_, i) => systems[(i + round) % systems.length]!);
type Series = Record<System, number[]>;
const series = (): Series => ({ parlance: [], aisdk: [], floor: [] });
const rows: Row[] = [];
const row = (what: string, s: Series, fmt: (x: number) => string) => rows.push(rowOf(what, s, fmt));
function rowOf(what: string, s: Series, fmt: (x: number) => string): Row {
  const floor = s.floor.length > 0;
  return { what, parlance: spread(s.parlance, fmt), aisdk: spread(s.aisdk, fmt), floor: floor ? spread(s.floor, fmt) : '–', ratio: ratio(s.parlance, s.aisdk), floorRatio: floor ? ratio(s.parlance, s.floor) : '–' };
}

async function main() {
  const title = `Parlance vs AI SDK (ai 6.0.325, @ai-sdk/react 3.0.328) vs floor — Node ${process.version}, ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}, ${ROUNDS} rounds${QUICK ? ' (quick)' : ''}${process.env.BENCH_CONCURRENCY ? `, BENCH_CONCURRENCY=${CONCURRENCY}` : ''}`;
  console.log(title);
  const mocks = {
    openai: await serveMockProvider({ dialect: 'openai_completions', script }),
    anthropic: await serveMockProvider({ dialect: 'anthropic_messages', script }),
  };
  const servers = {} as Record<System, { child: ChildProcess; url: string }>;
  for (const system of SYSTEMS) {
    const child = fork(new URL('./server-process.ts', import.meta.url), {
      execArgv: ['--expose-gc', '--import', 'tsx'],
      env: { ...process.env, SYSTEM: system, MOCK_OPENAI: mocks.openai.url, MOCK_ANTHROPIC: mocks.anthropic.url },
    });
    children.push(child);
    const { port } = await next(child, 'ready');
    servers[system] = { child, url: `http://127.0.0.1:${port}/chat` };
  }
  const forget = () => {
    mocks.openai.handler.reset();
    mocks.anthropic.handler.reset();
  };
  const cpu = async (system: System) => (await ask(servers[system].child, { type: 'cpu' }, 'cpu')).micros;

  // BENCH_ONLY=client: only the client measures (the servers still record the replies); BENCH_ONLY=per-delta: only
  // the server CPU per extra delta (step 1's last part), the quickest look at the engine's per-delta cost.
  const serverSide = process.env.BENCH_ONLY !== 'client';
  const perDeltaOnly = process.env.BENCH_ONLY === 'per-delta';
  // 1. Server CPU and wall per chat, bytes per reply: short and long replies on both wires, paced
  // upstreams, tool round trips; then the CPU per extra delta (long minus short, per round).
  const scenarios: { wire: Wire; model: string; label: string; perRound: number }[] = [];
  const deltas = (model: string) => `${Number(model.slice(1)).toLocaleString('en')} deltas`;
  for (const wire of ['openai', 'anthropic'] as const)
    for (const [model, perRound] of [['d50', QUICK ? 4 : 20], ['d1000', QUICK ? 1 : 4]] as const) scenarios.push({ wire, model, label: `${deltas(model)}, ${wire} wire`, perRound });
  scenarios.push({ wire: 'openai', model: 'd20000', label: '20,000 deltas, openai wire', perRound: 1 });
  for (const [model, perRound] of [['p50', QUICK ? 2 : 6], ['p500', 1]] as const) scenarios.push({ wire: 'openai', model, label: `${deltas(model)} ${PACE_MS} ms apart, openai wire`, perRound });
  for (const wire of ['openai', 'anthropic'] as const) scenarios.push({ wire, model: 'tool', label: `tool round trip, ${wire} wire`, perRound: QUICK ? 2 : 10 });
  const bytes: Row[] = [];
  const cpuBy = new Map<string, Series>();
  for (const s of serverSide && !perDeltaOnly ? scenarios : []) {
    process.stdout.write(`${s.label}… `);
    for (const system of SYSTEMS) await chat(servers[system].url, system, s.wire, s.model); // warm-up
    const cpuMs = series();
    const wallMs = series();
    const size = series();
    for (let round = 0; round < ROUNDS; round++)
      for (const system of order(round)) {
        const before = await cpu(system);
        const start = performance.now();
        for (let i = 0; i < s.perRound; i++) size[system].push((await chat(servers[system].url, system, s.wire, s.model)).bytes);
        wallMs[system].push((performance.now() - start) / s.perRound);
        cpuMs[system].push(((await cpu(system)) - before) / 1000 / s.perRound);
      }
    forget();
    cpuBy.set(`${s.wire}:${s.model}`, cpuMs);
    row(`server CPU per chat, ${s.label}`, cpuMs, ms);
    row(`wall per chat, ${s.label}`, wallMs, ms);
    bytes.push(rowOf(`bytes per reply, ${s.label}`, size, kb));
  }
  /** CPU per extra delta: (long - short) / (extra deltas), round by round (rounds ran the systems in the same order). */
  const perExtra = (label: string, short: string, long: string, extra: number) => {
    const a = cpuBy.get(short);
    const b = cpuBy.get(long);
    if (!a || !b) return;
    const s = series();
    for (const system of SYSTEMS) s[system] = b[system].map((x, i) => ((x - a[system][i]!) * 1000) / extra);
    row(`server CPU per extra delta, ${label}`, s, us);
  };
  // Server CPU per extra delta, N against 2N deltas: per round and system (the order rotating), EXTRA_CHATS chats of
  // N deltas and then EXTRA_CHATS of 2N, back to back so both see the same load; the CPU difference over the
  // EXTRA_CHATS * N extra deltas. What a chat costs once (the request, the thread, the first response) cancels out.
  for (const wire of serverSide ? (['openai', 'anthropic'] as const) : []) {
    process.stdout.write(`per extra delta, ${wire}… `);
    const short = `d${EXTRA_DELTAS}`;
    const long = `d${2 * EXTRA_DELTAS}`;
    for (const system of SYSTEMS) for (const model of [short, long]) await chat(servers[system].url, system, wire, model); // warm-up
    const perDelta = series();
    const loads: number[] = [];
    for (let round = 0; round < EXTRA_ROUNDS; round++) {
      loads.push(loadavg()[0]!);
      for (const system of order(round)) {
        const used = async (model: string) => {
          const before = await cpu(system);
          for (let i = 0; i < EXTRA_CHATS; i++) await chat(servers[system].url, system, wire, model);
          return (await cpu(system)) - before;
        };
        const base = await used(short);
        perDelta[system].push(((await used(long)) - base) / (EXTRA_CHATS * EXTRA_DELTAS));
        forget();
      }
    }
    row(`server CPU per extra delta (${EXTRA_DELTAS.toLocaleString('en')} vs ${(2 * EXTRA_DELTAS).toLocaleString('en')} deltas), ${wire} wire, load ${median(loads).toFixed(1)}`, perDelta, us);
  }
  perExtra(`paced ${PACE_MS} ms, openai wire`, 'openai:p50', 'openai:p500', 450);
  rows.push(...bytes);
  if (perDeltaOnly) {
    console.log(`\n\n${table(rows)}\n\nload average after: ${loadavg()[0]!.toFixed(2)}`);
    for (const child of children) child.kill();
    await Promise.all([mocks.openai.close(), mocks.anthropic.close()]);
    clearTimeout(deadline);
    return;
  }

  // 2. Concurrent streams (50 deltas 2 ms apart each): wall, first text delta, peak heap; heap retained once they finished.
  process.stdout.write(`${CONCURRENCY} concurrent… `);
  const wall = series();
  const p50 = series();
  const p99 = series();
  const peak = series();
  const retained = series();
  for (let round = 0; serverSide && round < Math.max(2, Math.min(ROUNDS, 3)); round++)
    for (const system of order(round)) {
      const { child, url } = servers[system];
      const before = (await ask(child, { type: 'heap' }, 'heap')).bytes;
      await ask(child, { type: 'peak', watch: true }, 'peak');
      const start = performance.now();
      const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => chat(url, system, 'openai', 'c50')));
      wall[system].push(performance.now() - start);
      const ttft = results.map((r) => r.ttftMs);
      p50[system].push(quantile(ttft, 0.5));
      p99[system].push(quantile(ttft, 0.99));
      peak[system].push((await ask(child, { type: 'peak', watch: false }, 'peak')).bytes);
      await new Promise((resolve) => setTimeout(resolve, 300));
      retained[system].push((await ask(child, { type: 'heap' }, 'heap')).bytes - before);
      forget();
    }
  if (serverSide) {
    row(`${CONCURRENCY} concurrent streams: wall`, wall, ms);
    row(`${CONCURRENCY} concurrent: first text delta p50`, p50, ms);
    row(`${CONCURRENCY} concurrent: first text delta p99`, p99, ms);
    row(`${CONCURRENCY} concurrent: peak heap`, peak, mb);
    row(`heap retained after ${CONCURRENCY} finished runs`, retained, mb);
  }

  // 3. Client store CPU: the recorded replies of each server, consumed by each client in this process.
  process.stdout.write('client stores… ');
  const record = async (system: System, model: string, prior: number) => {
    const r = await chat(servers[system].url, system, 'openai', model, { prior, keep: true });
    forget();
    return r;
  };
  /** A fetch answering with a recorded reply; `paced`: one recorded chunk per event-loop turn, as from a network. */
  const replay = (r: ChatResult, paced = false): typeof fetch =>
    (async () => {
      let i = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (paced) await new Promise((resolve) => setImmediate(resolve));
          if (i < r.chunks.length) controller.enqueue(r.chunks[i++]!);
          else controller.close();
        },
      });
      const headers: Record<string, string> = { 'content-type': 'text/event-stream' };
      if (r.runId) headers['x-parlance-run-id'] = r.runId;
      return new Response(body, { headers });
    }) as typeof fetch;
  const consume = async (system: System, r: ChatResult, prior: number): Promise<number> => {
    const start = process.cpuUsage();
    if (system === 'parlance') {
      const store = new ChatStore({ api: 'http://127.0.0.1/bench', fetch: replay(r), initialThread: { version: 1, id: 'th', messages: priorParlance(prior) } });
      await store.send('Hello');
      if (store.getSnapshot().status !== 'ready') throw new Error(`The Parlance store ended ${store.getSnapshot().status}`);
    } else if (system === 'floor') {
      // The client floor: read the bytes, split the frames, JSON.parse each one. No store, no fold.
      const body = (await replay(r)('http://127.0.0.1/bench')).body!;
      const decoder = new TextDecoder();
      let held = '';
      let events = 0;
      for await (const chunk of body) {
        const lines = (held + decoder.decode(chunk, { stream: true })).split('\n');
        held = lines.pop() ?? '';
        for (const line of lines) if (line.startsWith('data: ')) events += JSON.parse(line.slice(6)) ? 1 : 0;
      }
      if (events === 0) throw new Error('The floor reply held no events');
    } else {
      const chat = new Chat({ messages: priorUi(prior), transport: new DefaultChatTransport({ api: 'http://127.0.0.1/bench', fetch: replay(r) }) });
      await chat.sendMessage({ text: 'Hello' });
      if (chat.status !== 'ready') throw new Error(`The AI SDK chat ended ${chat.status}`);
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  const store20k = series();
  const recordAll = async (model: string, prior: number) => ({ parlance: await record('parlance', model, prior), aisdk: await record('aisdk', model, prior), floor: await record('floor', model, prior) });
  const recorded20k = await recordAll('d20000', 0);
  for (const system of SYSTEMS) await consume(system, recorded20k[system], 0); // warm-up
  for (let round = 0; round < ROUNDS; round++) for (const system of order(round)) store20k[system].push(await consume(system, recorded20k[system], 0));
  row('client store CPU, 20,000-delta reply', store20k, ms);

  // 4. Per-delta cost in the client store at 0, 1,000 and 10,000 prior messages: the CPU of a 5,000-delta
  // reply minus that of a 50-delta reply on the same thread, per extra delta (what a reply costs once,
  // such as sending the thread, cancels out).
  process.stdout.write('per-delta cost… ');
  const perDelta: Record<number, Series> = {};
  for (const prior of [0, 1_000, 10_000]) {
    const long = await recordAll('d5000', prior);
    const short = await recordAll('d50', prior);
    const s = (perDelta[prior] = series());
    for (const system of SYSTEMS) await consume(system, long[system], prior);
    for (let round = 0; round < ROUNDS; round++)
      for (const system of order(round)) {
        const base = await consume(system, short[system], prior);
        s[system].push((((await consume(system, long[system], prior)) - base) * 1000) / (5000 - 50));
      }
    row(`client per-delta cost, ${prior.toLocaleString('en')} prior messages`, s, us);
  }
  // 5. React: commits and wall for a 5,000-delta reply at 0, 100 and 500 prior messages.
  process.stdout.write('React… ');
  const { renderReply } = await import('./react-commits.ts');
  const replyText = realisticDeltas(5000).join('');
  // 500 prior messages costs the AI SDK ~20 s of rendering alone: BENCH_REACT_PRIORS=0,100,500 to include it.
  const reactPriors = process.env.BENCH_REACT_PRIORS ? process.env.BENCH_REACT_PRIORS.split(',').map(Number) : QUICK ? [0] : [0, 100];
  for (const prior of reactPriors) {
    const recorded = { parlance: await record('parlance', 'd5000', prior), aisdk: await record('aisdk', 'd5000', prior) };
    const messages = { parlance: priorParlance(prior), aisdk: priorUi(prior) };
    const commits = series();
    const wallMs = series();
    // One measured round (after a warm-up on the empty thread): the AI SDK takes seconds per render here.
    if (prior === 0) for (const system of STORES) await renderReply(system as 'parlance' | 'aisdk', replay(recorded[system as 'parlance' | 'aisdk'], true), messages, replyText);
    for (let round = 0; round < 1; round++)
      for (const system of order(round, STORES) as ('parlance' | 'aisdk')[]) {
        const r = await renderReply(system, replay(recorded[system], true), messages, replyText);
        commits[system].push(r.commits);
        wallMs[system].push(r.wallMs);
      }
    row(`React commits, 5,000-delta reply, ${prior} prior messages`, commits, (x) => x.toFixed(0));
    row(`React wall, 5,000-delta reply, ${prior} prior messages`, wallMs, ms);
  }

  // 6. What the browser downloads.
  const sizes = await bundleSizes();
  rows.push(rowOf('browser bundle, min+gz (React, zod external): useChat + useStream; AI SDK useChat', { parlance: [sizes.parlance], aisdk: [sizes.aisdk], floor: [] }, kb));
  rows.push(rowOf('browser bundle, min+gz: useChat + useStream + localStorageAdapter; AI SDK useChat', { parlance: [sizes.persisted], aisdk: [sizes.aisdk], floor: [] }, kb));

  for (const system of STORES) {
    const at = (prior: number) => median(perDelta[prior]![system]);
    console.log(`\n${system}: per-delta cost at 10,000 prior messages is ${(at(10_000) / at(0)).toFixed(2)}x the empty thread's (1,000: ${(at(1_000) / at(0)).toFixed(2)}x)`);
  }

  const footer = `load average after: ${loadavg()[0]!.toFixed(2)}; CPU is the server process's user + system time (process.cpuUsage), client CPU this process's. Cells: median (min–max) over the rounds; ratios of medians.`;
  console.log(`\n\n${table(rows)}\n`);
  console.log(footer);
  if (!QUICK && serverSide) {
    const out = new URL('../results/', import.meta.url);
    mkdirSync(out, { recursive: true });
    writeFileSync(new URL('latest.md', out), `${title}\n\n${table(rows)}\n\n${footer}\n`);
    console.log('Written to tooling/bench/results/latest.md (`pnpm --filter @parlance/bench readme` puts it in the README).');
  }
  for (const child of children) child.kill();
  await mocks.openai.close();
  await mocks.anthropic.close();
  clearTimeout(deadline);
}

main().catch((error) => {
  console.error('\nBENCH FAILED:', error);
  for (const child of children) child.kill();
  process.exit(1);
});
