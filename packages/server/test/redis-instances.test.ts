// Two server processes on one real Redis, as behind a load balancer: a run started on A
// is resumed and cancelled through B, and when A dies mid-run B's client is told so.
import { type ChildProcess, fork } from 'node:child_process';
import { type Event, foldEvents } from '@parlance/protocol';
import { serveMockProvider, type MockProviderServer } from '@parlance/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frames, textOf } from './helpers.ts';
import { type RedisServer, startRedis } from './redis-server.ts';
import type { FromInstance } from './store-server-process.ts';

const WORDS = Array.from({ length: 40 }, (_, i) => `w${i} `);
let redis: RedisServer;
let mock: MockProviderServer;
const children: ChildProcess[] = [];

async function instance(): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(new URL('./store-server-process.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    // Takeover off: these show the run store alone (redis-takeover.test.ts shows a run taken over).
    env: { ...process.env, STORE: 'redis', REDIS_URL: redis.url, MOCK_URL: mock.url, LEASE_MS: '1000', TAKEOVER: '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (m: FromInstance) => m.type === 'ready' && resolve(m.port));
    child.once('exit', (code) => reject(new Error(`The server process exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

let a: { url: string; child: ChildProcess };
let b: { url: string; child: ChildProcess };
beforeAll(async () => {
  redis = await startRedis();
  mock = await serveMockProvider({ dialect: 'openai_completions', script: [{ text: WORDS, usage: { inputTokens: 3, outputTokens: 40 }, delayMs: 25 }] });
  [a, b] = await Promise.all([instance(), instance()]);
}, 60_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await mock?.close();
  await redis?.stop();
});

let n = 0;
function post(url: string, signal?: AbortSignal) {
  const body = { clientRequestId: `two_${++n}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] };
  return fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
}

/** Reads frames until `count` text deltas were seen, then leaves the stream open. */
async function readDeltas(stream: AsyncGenerator<{ id?: string; data?: Event }>, count: number) {
  const seen: { id: string; event: Event }[] = [];
  let deltas = 0;
  for (;;) {
    const { done, value } = await stream.next();
    if (done) throw new Error('The stream ended early');
    if (!value.data) continue;
    seen.push({ id: value.id!, event: value.data });
    if (value.data.type === 'text-delta' && ++deltas === count) return seen;
  }
}

async function rest(stream: AsyncGenerator<{ id?: string; data?: Event }>) {
  const out: { id?: string; event: Event }[] = [];
  for await (const frame of { [Symbol.asyncIterator]: () => stream }) if (frame.data) out.push({ id: frame.id, event: frame.data });
  return out;
}

describe('two server instances on one Redis', () => {
  it('a run started on A resumes on B mid-stream: every event once, in order, one upstream call', async () => {
    const calls = mock.requests.length;
    const disconnect = new AbortController();
    const res = await post(a.url, disconnect.signal);
    const runId = res.headers.get('x-parlance-run-id')!;
    const seen = await readDeltas(frames(res), 3);
    disconnect.abort(); // the browser's connection to A drops
    const resumed = await fetch(`${b.url}/runs/${runId}/events`, { headers: { 'Last-Event-ID': seen.at(-1)!.id } });
    expect(resumed.status).toBe(200);
    const after = await rest(frames(resumed));
    const ids = [...seen, ...after].map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => String(i)));
    expect(textOf([...seen, ...after].map((e) => e.event))).toBe(WORDS.join(''));
    expect(after.at(-1)!.event).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
    expect(mock.requests.length - calls).toBe(1);
  }, 30_000);

  it('a cancel sent to B aborts the upstream fetch A is making; A ends the run cancelled with what was said', async () => {
    const before = mock.disconnects();
    const res = await post(a.url);
    const runId = res.headers.get('x-parlance-run-id')!;
    const stream = frames(res);
    const seen = await readDeltas(stream, 2);
    const cancel = await fetch(`${b.url}/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(202);
    const after = await rest(stream);
    const events = [...seen, ...after].map((e) => e.event);
    expect(events.filter((e) => e.type === 'chat-finish')).toEqual([expect.objectContaining({ haltReason: 'cancelled' })]);
    const text = textOf(events);
    expect(text.length).toBeGreaterThan(0);
    expect(WORDS.join('').startsWith(text)).toBe(true);
    expect(text).not.toBe(WORDS.join(''));
    // The mock provider saw A's upstream request closed before its response ended.
    for (let i = 0; i < 100 && mock.disconnects() === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(mock.disconnects()).toBe(before + 1);
  }, 30_000);

  it("with takeover off, when A dies mid-run, B's client gets a typed run_lost error and keeps the partial message", async () => {
    const res = await post(a.url);
    const runId = res.headers.get('x-parlance-run-id')!;
    const seen = await readDeltas(frames(res), 3);
    const resumed = await fetch(`${b.url}/runs/${runId}/events`, { headers: { 'Last-Event-ID': seen.at(-1)!.id } });
    const onB = frames(resumed);
    a.child.kill('SIGKILL');
    const after = await rest(onB);
    const events = [...seen, ...after].map((e) => e.event);
    // No delta lost or twice across the two connections (ids 0, 1, 2, ... once each), exactly one ending.
    const ids = [...seen, ...after].map((e) => Number(e.id));
    expect(ids).toEqual(ids.map((_, i) => i));
    expect(events.filter((e) => e.type === 'chat-finish')).toHaveLength(1);
    expect(after.at(-2)!.event).toMatchObject({ type: 'error', code: 'run_lost', retryable: true });
    expect(after.at(-1)!.event).toMatchObject({ type: 'chat-finish', haltReason: 'error', error: { code: 'run_lost' } });
    // What a client folds from these events: the partial answer is there, marked as failed.
    const message = foldEvents(events).messages.at(-1)!;
    const text = message.parts.find((p) => p.type === 'text');
    expect(text && text.type === 'text' && text.text.length).toBeGreaterThan(0);
    expect(WORDS.join('').startsWith(textOf(events))).toBe(true);
  }, 30_000);
});
