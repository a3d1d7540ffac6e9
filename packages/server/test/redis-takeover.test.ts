// Durable runs: three server processes on one real redis-server. The process running a run is
// SIGKILLed in the middle of a model step or of a tool call (or SIGTERMed); the run completes on
// another process with what an uninterrupted run says, each tool that is not idempotent runs at
// most once (a spy counted across processes), and the readers on the other two processes each
// see one stream with exactly one ending.
import { type ChildProcess, fork } from 'node:child_process';
import { ChatStore } from '@parlance/client';
import { INTERRUPTED_RESULT } from '@parlance/engine';
import { createFoldState, type Event, foldEvents, type Message } from '@parlance/protocol';
import { serveMockProvider, type MockProviderServer, type ScriptedTurn } from '@parlance/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frames } from './helpers.ts';
import { type RedisServer, startRedis } from './redis-server.ts';
import type { FromInstance } from './store-server-process.ts';

interface Instance {
  url: string;
  child: ChildProcess;
}

const FILLER = Array.from({ length: 30 }, (_, i) => `w${i} `);
let redis: RedisServer;
let mock: MockProviderServer;
const children: ChildProcess[] = [];
/** Every tool start any process reported: `name:toolCallId@pid`. */
const toolStarts: string[] = [];
const toolStarted: (() => void)[] = [];

/**
 * The model answers from the request alone, so a call made again says the same. The user asks in
 * a line: `text` (a plain answer), or `tool=<name> ms=<duration>` (one call, then an answer with its result).
 */
function script(request: { body: unknown }): ScriptedTurn {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.at(-1)!;
  if (last.role === 'tool') return { text: ['The ', 'sum ', 'is ', `${String(last.content)}. `, ...FILLER], usage: { inputTokens: 9, outputTokens: 35 }, delayMs: 25 };
  const ask = String(typeof last.content === 'string' ? last.content : JSON.stringify(last.content));
  const tool = /tool=(\w+) ms=(\d+)/.exec(ask);
  if (!tool) return { text: FILLER, usage: { inputTokens: 3, outputTokens: 30 }, delayMs: 25 };
  return { toolCalls: [{ id: 'call_add', name: tool[1]!, input: { a: 1, b: 2, ms: Number(tool[2]) } }], usage: { inputTokens: 5, outputTokens: 3 } };
}

async function instance(env: Record<string, string> = {}): Promise<Instance> {
  const child = fork(new URL('./store-server-process.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, STORE: 'redis', REDIS_URL: redis.url, MOCK_URL: mock.url, LEASE_MS: '1000', TOOLS: '1', REDIS_PREFIX: 'takeover:', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  child.on('message', (m: FromInstance) => {
    if (m.type !== 'tool') return;
    toolStarts.push(`${m.name}:${m.toolCallId}@${m.pid}`);
    for (const wake of toolStarted.splice(0)) wake();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (m: FromInstance) => m.type === 'ready' && resolve(m.port));
    child.once('exit', (code) => reject(new Error(`The server process exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

let b: Instance;
let c: Instance;
beforeAll(async () => {
  redis = await startRedis();
  mock = await serveMockProvider({ dialect: 'openai_completions', script: (request) => script(request) });
  [b, c] = await Promise.all([instance(), instance()]);
}, 60_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await mock?.close();
  await redis?.stop();
});

let n = 0;
function post(url: string, text: string) {
  const body = { clientRequestId: `takeover_${++n}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] };
  return fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

type Frames = AsyncGenerator<{ id?: string; data?: Event }>;

/** Reads frames until `until` says so, keeping them; the stream stays open. */
async function readUntil(stream: Frames, until: (seen: Event[]) => boolean): Promise<{ id: string; event: Event }[]> {
  const seen: { id: string; event: Event }[] = [];
  for (;;) {
    const { done, value } = await stream.next();
    if (done) throw new Error('The stream ended early');
    if (!value.data) continue;
    seen.push({ id: value.id!, event: value.data });
    if (until(seen.map((s) => s.event))) return seen;
  }
}

async function rest(stream: Frames): Promise<{ id: string; event: Event }[]> {
  const out: { id: string; event: Event }[] = [];
  for await (const frame of { [Symbol.asyncIterator]: () => stream }) if (frame.data) out.push({ id: frame.id!, event: frame.data });
  return out;
}

function follow(url: string, runId: string): Frames {
  return (async function* () {
    yield* frames(await fetch(`${url}/runs/${runId}/events`));
  })();
}

const user: Message = { id: 'u1', role: 'user', parts: [{ type: 'text', text: '' }] };
/** What a client shows after folding these events: the text of every assistant message. */
function shownText(events: Event[]): string {
  return foldEvents(events, createFoldState([user]))
    .messages.filter((m) => m.role === 'assistant')
    .flatMap((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')))
    .join('');
}

/** Asserts one reader's whole stream: every sequence once, in order, exactly one ending that completed. */
function expectOneStream(read: { id: string; event: Event }[]) {
  expect(read.map((e) => Number(e.id))).toEqual(read.map((_, i) => i));
  expect(read.filter((e) => e.event.type === 'chat-finish')).toHaveLength(1);
  expect(read.at(-1)!.event).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
}

const deltasOfStep = (step: number) => (seen: Event[]) => {
  const at = seen.findIndex((e) => e.type === 'step-start' && e.step === step);
  return at >= 0 && seen.slice(at).filter((e) => e.type === 'text-delta').length >= 3;
};

/** An uninterrupted run of `text` on B: what every interrupted one must end up saying. */
async function uninterrupted(text: string): Promise<string> {
  const res = await post(b.url, text);
  const read = await rest(frames(res));
  expectOneStream(read);
  return shownText(read.map((e) => e.event));
}

/**
 * Starts `text` on a fresh process A with readers on B and C, kills A with `signal` once `when` is
 * met on A's stream, then reads everything: B's and C's streams, and A's reader resumed on B.
 */
async function interrupt(text: string, when: (seen: Event[]) => boolean | 'tool', signal: NodeJS.Signals = 'SIGKILL', make = () => instance()) {
  const a = await make();
  const toolBegan = new Promise<void>((resolve) => toolStarted.push(resolve));
  const res = await post(a.url, text);
  const runId = res.headers.get('x-parlance-run-id')!;
  const onA = frames(res);
  const [onB, onC] = [follow(b.url, runId), follow(c.url, runId)];
  const seenOnA = await readUntil(onA, (seen) => when(seen) === true || (when(seen) === 'tool' && seen.some((e) => e.type === 'finish')));
  if (when(seenOnA.map((e) => e.event)) === 'tool') await toolBegan;
  const exited = new Promise((resolve) => a.child.once('exit', resolve));
  a.child.kill(signal);
  await exited;
  const [readB, readC] = await Promise.all([rest(onB), rest(onC)]);
  // A's browser reconnects to B with the last id it got.
  const resumed = await rest(frames(await fetch(`${b.url}/runs/${runId}/events`, { headers: { 'Last-Event-ID': seenOnA.at(-1)!.id } })));
  const readA = [...seenOnA, ...resumed];
  for (const read of [readA, readB, readC]) expectOneStream(read);
  expect(readB.map((e) => e.event)).toEqual(readC.map((e) => e.event));
  expect(readA.map((e) => e.event)).toEqual(readB.map((e) => e.event));
  return { events: readB.map((e) => e.event), runId, pid: a.child.pid };
}

/** A process A whose tools never end (until it is killed): a kill surely lands inside the call. */
const hanging = () => instance({ TOOL_HANG: '1' });

describe('a run outlives the process running it (Redis, three processes)', () => {
  it('SIGKILL in the middle of a model step: another process makes the call again, one step-restarted, the exact text', async () => {
    const expected = await uninterrupted('text');
    const calls = mock.requests.length;
    const { events } = await interrupt('text', deltasOfStep(0));
    expect(events.filter((e) => e.type === 'step-restarted')).toEqual([expect.objectContaining({ step: 0, reason: 'takeover' })]);
    expect(shownText(events)).toBe(expected);
    expect(mock.requests.length - calls).toBe(2); // the cut call and the one made again
  }, 120_000);

  it('SIGKILL in the model step after a tool call: the stored result is kept, the tool ran once, the exact text', async () => {
    const expected = await uninterrupted('tool=add ms=10');
    const before = toolStarts.length;
    const { events, pid } = await interrupt('tool=add ms=10', deltasOfStep(1));
    expect(toolStarts.slice(before)).toEqual([`add:call_add@${pid}`]);
    expect(events.filter((e) => e.type === 'step-restarted')).toEqual([expect.objectContaining({ step: 1 })]);
    expect(shownText(events)).toBe(expected);
  }, 120_000);

  it('SIGKILL in the middle of a tool call that is not idempotent: not run again, the model is told it was interrupted', async () => {
    const before = toolStarts.length;
    const { events, pid } = await interrupt('tool=add ms=10', () => 'tool', 'SIGKILL', hanging);
    expect(toolStarts.slice(before)).toEqual([`add:call_add@${pid}`]);
    expect(events.filter((e) => e.type === 'tool-result')).toEqual([expect.objectContaining({ toolCallId: 'call_add', output: INTERRUPTED_RESULT, isError: true })]);
    expect(events.filter((e) => e.type === 'step-restarted')).toEqual([]);
    expect(shownText(events)).toContain('interrupted: not run again');
  }, 120_000);

  it('SIGKILL in the middle of an idempotent tool call: run again with the same call id, the exact text', async () => {
    const expected = await uninterrupted('tool=add_idempotent ms=10');
    const before = toolStarts.length;
    const { events, pid } = await interrupt('tool=add_idempotent ms=10', () => 'tool', 'SIGKILL', hanging);
    const started = toolStarts.slice(before);
    expect(started).toHaveLength(2);
    expect(started[0]).toBe(`add_idempotent:call_add@${pid}`);
    expect(started[1]).toMatch(/^add_idempotent:call_add@/);
    expect(shownText(events)).toBe(expected);
  }, 120_000);
});

describe('a graceful shutdown hands the run over', () => {
  it('SIGTERM mid-step: another process goes on at once, with a lease far longer than the test may take', async () => {
    // Processes whose lease is 10 minutes: a takeover that waited for it would time the test out.
    const long = { LEASE_MS: '600000', REDIS_PREFIX: 'handover:' };
    const saved = [b, c];
    [b, c] = await Promise.all([instance(long), instance(long)]);
    try {
      const expected = await uninterrupted('text');
      const { events } = await interrupt('text', deltasOfStep(0), 'SIGTERM', () => instance(long));
      expect(events.filter((e) => e.type === 'step-restarted')).toEqual([expect.objectContaining({ step: 0, reason: 'handover' })]);
      expect(shownText(events)).toBe(expected);
    } finally {
      b.child.kill('SIGKILL');
      c.child.kill('SIGKILL');
      [b, c] = saved as [Instance, Instance];
    }
  }, 120_000);
});

describe('with takeover off', () => {
  it('after a crash inside a tool, the client (ChatStore) gets run_lost and retry() of the turn works', async () => {
    const off = { TAKEOVER: '0', REDIS_PREFIX: 'off:' };
    const [a, other] = await Promise.all([instance({ ...off, TOOL_HANG: '1' }), instance(off)]);
    try {
      // A load balancer: A while it lives, then the other instance.
      let live = a;
      const lb = (url: string | URL | Request, init?: RequestInit) => fetch(String(url).replace('http://lb', live.url), init);
      let n = 0;
      const chat = new ChatStore({ api: 'http://lb', fetch: lb as typeof fetch, retryDelayMs: 50, threadId: 't', generateId: () => `c${++n}` });
      chat.schedule = (flush) => queueMicrotask(flush);
      chat.connect();
      const before = toolStarts.length;
      const toolBegan = new Promise<void>((resolve) => toolStarted.push(resolve));
      const sent = chat.send('tool=add ms=10');
      await toolBegan;
      live = other;
      a.child.kill('SIGKILL');
      await sent;
      await chat.idle();
      expect(chat.getSnapshot()).toMatchObject({ status: 'error', error: { code: 'run_lost' } });
      // The failed turn keeps its signed call with no result; sending it again used to be refused (403).
      const failed = chat.getSnapshot().thread.messages.at(-1)!;
      expect(failed).toMatchObject({ role: 'assistant', error: { code: 'run_lost' }, parts: [{ type: 'tool-call', id: 'call_add', signature: expect.any(String) }] });
      await chat.retry();
      expect(chat.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'completed' });
      const last = chat.getSnapshot().thread.messages.at(-1)!;
      expect(last.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).toMatch(/^The sum is (Error: )?No result: this tool call was not completed\./);
      expect(toolStarts.slice(before)).toEqual([`add:call_add@${a.child.pid}`]);
    } finally {
      a.child.kill('SIGKILL');
      other.child.kill('SIGKILL');
    }
  }, 120_000);
});
