/**
 * Parlance beside the AI SDK, in one run: `pnpm bench` (node --expose-gc --import tsx src/compare.bench.ts).
 *
 *   this process: load generator + client stores ──HTTP──> child: Parlance server ──HTTP──> this process: mock upstream
 *                                                 ──HTTP──> child: AI SDK server  ──HTTP──┘   (OpenAI and Anthropic wire)
 *
 * Both servers run in their own processes (server-process.ts) against the same mock upstream
 * (`@parlance/testing`'s serveMockProvider, the dialects' real wire encoders), on 127.0.0.1.
 * Every measure runs in rounds that alternate which system goes first; the table shows the
 * median and (min–max) over the rounds and the ratio of medians. Nothing here asserts a time:
 * the bench exits non-zero only when it breaks (a failed chat, a crash, the global timeout).
 * Knobs: BENCH_ROUNDS (5), BENCH_QUICK=1 (fewer and smaller rounds, to check the bench runs),
 * BENCH_ONLY=client (the client measures only).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { Chat } from '@ai-sdk/react';
import { ChatStore } from '@parlance/client';
import type { Message } from '@parlance/protocol';
import { type MockScript, serveMockProvider } from '@parlance/testing';
import { DefaultChatTransport, type UIMessage } from 'ai';
import type { FromServer, ToServer } from './server-process.ts';
import { type Row, kb, mb, median, ms, quantile, ratio, spread, table, us } from './stats.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 2 : 5));
const CONCURRENCY = QUICK ? 50 : 200;
const GLOBAL_TIMEOUT_MS = 9 * 60_000;
const REQUEST_TIMEOUT_MS = 60_000;
type System = 'parlance' | 'aisdk';
type Wire = 'openai' | 'anthropic';
const SYSTEMS: System[] = ['parlance', 'aisdk'];

const deadline = setTimeout(() => {
  console.error(`\nBENCH ABORTED: not finished within ${GLOBAL_TIMEOUT_MS / 1000} s`);
  process.exit(2);
}, GLOBAL_TIMEOUT_MS);

const tokens = (count: number) => Array.from({ length: count }, (_, i) => `tok${i} `);
const hasToolResult = (body: unknown) => /"tool_result"|"role":"tool"/.test(JSON.stringify(body));
/** The model id names the scenario: dN (N text deltas), c50 (50 deltas, 2 ms apart), tool (a call, then 20 deltas). */
const script: MockScript = (request) => {
  const model = request.model ?? '';
  if (model === 'tool')
    return hasToolResult(request.body) ? { text: tokens(20), usage: { inputTokens: 5, outputTokens: 20 } } : { toolCalls: [{ id: 'call_1', name: 'weather', input: { city: 'Rome' } }], usage: { inputTokens: 5, outputTokens: 8 } };
  if (model === 'c50') return { text: tokens(50), delayMs: 2, usage: { inputTokens: 5, outputTokens: 50 } };
  const count = Number(model.slice(1)) || 1;
  return { text: tokens(count), usage: { inputTokens: 5, outputTokens: count } };
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
      : { id: `th_${id}`, model, wire, trigger: 'submit-message', messages: [...priorUi(prior), { id: `u_${id}`, role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] };
  const start = performance.now();
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
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

/** Rounds alternate which system goes first. */
const order = (round: number): System[] => (round % 2 ? ['aisdk', 'parlance'] : ['parlance', 'aisdk']);
type Series = Record<System, number[]>;
const series = (): Series => ({ parlance: [], aisdk: [] });
const rows: Row[] = [];
const row = (what: string, s: Series, fmt: (x: number) => string) => rows.push({ what, parlance: spread(s.parlance, fmt), aisdk: spread(s.aisdk, fmt), ratio: ratio(s.parlance, s.aisdk) });

async function main() {
  console.log(`Parlance vs AI SDK (ai 6.0.325, @ai-sdk/react 3.0.328) — Node ${process.version}, ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}, ${ROUNDS} rounds${QUICK ? ' (quick)' : ''}`);
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

  // BENCH_ONLY=client: only the client measures (the servers still record the replies).
  const serverSide = process.env.BENCH_ONLY !== 'client';
  // 1. Server CPU and wall per chat, bytes per reply.
  const scenarios: { wire: Wire; model: string; label: string; perRound: number }[] = [];
  for (const wire of ['openai', 'anthropic'] as const)
    for (const [model, perRound] of [['d50', QUICK ? 4 : 20], ['d1000', QUICK ? 1 : 4], ['d20000', 1]] as const)
      scenarios.push({ wire, model, label: `${Number(model.slice(1)).toLocaleString('en')} deltas, ${wire} wire`, perRound });
  scenarios.push({ wire: 'openai', model: 'tool', label: 'tool round trip, openai wire', perRound: QUICK ? 2 : 10 });
  const bytes: Row[] = [];
  for (const s of serverSide ? scenarios : []) {
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
    row(`server CPU per chat, ${s.label}`, cpuMs, ms);
    row(`wall per chat, ${s.label}`, wallMs, ms);
    bytes.push({ what: `bytes per reply, ${s.label}`, parlance: kb(median(size.parlance)), aisdk: kb(median(size.aisdk)), ratio: ratio(size.parlance, size.aisdk) });
  }
  rows.push(...bytes);

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
      await ask(child, { type: 'peak' }, 'peak');
      const start = performance.now();
      const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => chat(url, system, 'openai', 'c50')));
      wall[system].push(performance.now() - start);
      const ttft = results.map((r) => r.ttftMs);
      p50[system].push(quantile(ttft, 0.5));
      p99[system].push(quantile(ttft, 0.99));
      peak[system].push((await ask(child, { type: 'peak' }, 'peak')).bytes);
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
    } else {
      const chat = new Chat({ messages: priorUi(prior), transport: new DefaultChatTransport({ api: 'http://127.0.0.1/bench', fetch: replay(r) }) });
      await chat.sendMessage({ text: 'Hello' });
      if (chat.status !== 'ready') throw new Error(`The AI SDK chat ended ${chat.status}`);
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  const store20k = series();
  const recorded20k = { parlance: await record('parlance', 'd20000', 0), aisdk: await record('aisdk', 'd20000', 0) };
  for (const system of SYSTEMS) await consume(system, recorded20k[system], 0); // warm-up
  for (let round = 0; round < ROUNDS; round++) for (const system of order(round)) store20k[system].push(await consume(system, recorded20k[system], 0));
  row('client store CPU, 20,000-delta reply', store20k, ms);

  // 4. Per-delta cost in the client store at 0, 1,000 and 10,000 prior messages: the CPU of a 5,000-delta
  // reply minus that of a 50-delta reply on the same thread, per extra delta (what a reply costs once,
  // such as sending the thread, cancels out).
  process.stdout.write('per-delta cost… ');
  const perDelta: Record<number, Series> = {};
  for (const prior of [0, 1_000, 10_000]) {
    const long = { parlance: await record('parlance', 'd5000', prior), aisdk: await record('aisdk', 'd5000', prior) };
    const short = { parlance: await record('parlance', 'd50', prior), aisdk: await record('aisdk', 'd50', prior) };
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
  for (const prior of [0, 100, 500]) {
    const recorded = { parlance: await record('parlance', 'd5000', prior), aisdk: await record('aisdk', 'd5000', prior) };
    const messages = { parlance: priorParlance(prior), aisdk: priorUi(prior) };
    const commits = series();
    const wallMs = series();
    // One measured round (after a warm-up on the empty thread): the AI SDK takes seconds per render here.
    if (prior === 0) for (const system of SYSTEMS) await renderReply(system, replay(recorded[system], true), messages);
    for (let round = 0; round < 1; round++)
      for (const system of order(round)) {
        const r = await renderReply(system, replay(recorded[system], true), messages);
        commits[system].push(r.commits);
        wallMs[system].push(r.wallMs);
      }
    row(`React commits, 5,000-delta reply, ${prior} prior messages`, commits, (x) => x.toFixed(0));
    row(`React wall, 5,000-delta reply, ${prior} prior messages`, wallMs, ms);
  }

  for (const system of SYSTEMS) {
    const at = (prior: number) => median(perDelta[prior]![system]);
    console.log(`\n${system}: per-delta cost at 10,000 prior messages is ${(at(10_000) / at(0)).toFixed(2)}x the empty thread's (1,000: ${(at(1_000) / at(0)).toFixed(2)}x)`);
  }

  console.log(`\n\n${table(rows)}\n`);
  console.log(`load average after: ${loadavg()[0]!.toFixed(2)}; CPU is the server process's user + system time (process.cpuUsage), client CPU this process's.`);
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
