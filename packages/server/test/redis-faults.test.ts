// Faults against real parts (issue #26): a real redis-server stopped and started by the test while a
// server process streams a run into it, an endless upstream, a reader that never reads. In every fault:
// exactly one ending per run (or a typed error), no delta lost, none twice.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event } from '@parlance/protocol';
import { type MockProviderServer, serveMockProvider } from '@parlance/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndlessUpstream, serveEndlessUpstream } from './endless-upstream.ts';
import type { FromEndless } from './endless-server-process.ts';
import { frames, textOf } from './helpers.ts';
import { type RedisServer, startRedis } from './redis-server.ts';

const WORDS = Array.from({ length: 60 }, (_, i) => `w${i} `);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'parlance-redis-'));
let redis: RedisServer;
let port: number;
let mock: MockProviderServer;
let endless: EndlessUpstream;

function serverProcess(env: Record<string, string>): Promise<string> {
  const child = fork(new URL('./endless-server-process.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${port}`, LEASE_MS: '1000', STORE_GRACE_MS: '1000', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.on('message', (m: FromEndless) => m.type === 'ready' && resolve(`http://127.0.0.1:${m.port}`));
    child.once('exit', (code) => reject(new Error(`The server process exited (${code})`)));
  });
}

beforeAll(async () => {
  redis = await startRedis({ aofDir: dir });
  port = redis.port;
  mock = await serveMockProvider({ dialect: 'openai_completions', script: [{ text: WORDS, usage: { inputTokens: 3, outputTokens: 60 }, delayMs: 40 }] });
  endless = await serveEndlessUpstream();
}, 60_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await mock?.close();
  await endless?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
const post = (url: string) =>
  fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientRequestId: `fault_${++n}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] }),
  });

type Seen = { id?: string; event: Event };
/** Reads frames until `stop` says so (or the stream ends); returns what came and whether it ended. */
async function read(stream: AsyncGenerator<{ id?: string; data?: Event }>, stop: (seen: Seen[]) => boolean = () => false) {
  const seen: Seen[] = [];
  for (;;) {
    const { done, value } = await stream.next();
    if (done) return { seen, ended: true };
    if (!value.data) continue;
    seen.push({ id: value.id, event: value.data });
    if (stop(seen)) return { seen, ended: false };
  }
}

/** Resumes after `lastId` until the run's stream ends, trying again while the store is down (503 or a store_unavailable frame). */
async function resume(url: string, runId: string, lastId: string | undefined): Promise<Seen[]> {
  const all: Seen[] = [];
  let last = lastId;
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await fetch(`${url}/runs/${runId}/events`, { headers: last ? { 'Last-Event-ID': last } : {} });
    if (response.status === 503) {
      await response.body?.cancel();
      await sleep(100);
      continue;
    }
    expect(response.status).toBe(200);
    const { seen } = await read(frames(response));
    // A frame without an id is the typed store_unavailable of a store that went away mid-stream.
    const kept = seen.filter((s) => s.id !== undefined);
    all.push(...kept);
    if (kept.length) last = kept.at(-1)!.id;
    if (kept.at(-1)?.event.type === 'chat-finish') return all;
    expect(seen.at(-1)?.event).toMatchObject({ type: 'error', code: 'store_unavailable' });
    await sleep(100);
  }
  throw new Error('The run never ended');
}

function expectOneEnding(all: Seen[]) {
  // No delta lost or twice: the ids are 0, 1, 2, ... with no gap and no repeat.
  expect(all.map((s) => Number(s.id))).toEqual(all.map((_, i) => i));
  expect(all.filter((s) => s.event.type === 'chat-finish')).toHaveLength(1);
  expect(all.at(-1)!.event.type).toBe('chat-finish');
}

describe('a real redis-server stopped and started mid-run', () => {
  it('back within the grace: the run goes on; every delta once, in order, one chat-finish', async () => {
    // A grace and a lease of 10 s, so "within" holds on a loaded machine too: with 1 s, stopping and
    // starting redis-server (it loads its AOF) took longer than the grace in a CI run at load 30.
    const url = await serverProcess({ MOCK_URL: mock.url, LEASE_MS: '10000', STORE_GRACE_MS: '10000' });
    const response = await post(url);
    const runId = response.headers.get('x-parlance-run-id')!;
    const first = await read(frames(response), (seen) => seen.filter((s) => s.event.type === 'text-delta').length === 5);
    await redis.stop();
    await sleep(300);
    redis = await startRedis({ port, aofDir: dir });
    const rest = await resume(url, runId, first.seen.at(-1)!.id);
    const all = [...first.seen, ...rest];
    expectOneEnding(all);
    expect(textOf(all.map((s) => s.event))).toBe(WORDS.join(''));
    expect(all.at(-1)!.event).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
  }, 60_000);

  it('down past the grace: the upstream call is aborted, and once Redis is back the run has exactly one (typed) ending', async () => {
    const url = await serverProcess({ MOCK_URL: mock.url });
    const before = mock.disconnects();
    const response = await post(url);
    const runId = response.headers.get('x-parlance-run-id')!;
    const first = await read(frames(response), (seen) => seen.filter((s) => s.event.type === 'text-delta').length === 5);
    await redis.stop();
    // The owner gives up on the store and closes its upstream request (the mock provider sees it).
    for (let i = 0; i < 200 && mock.disconnects() === before; i++) await sleep(50);
    expect(mock.disconnects()).toBe(before + 1);
    redis = await startRedis({ port, aofDir: dir });
    const rest = await resume(url, runId, first.seen.at(-1)!.id);
    const all = [...first.seen, ...rest];
    expectOneEnding(all);
    const events = all.map((s) => s.event);
    // Two endings are right, depending on whether Redis was back within the owner's grace for its
    // ending: the owner's typed error, or (durable runs, issue #33) the reader found the lease lapsed
    // and this process took the run over: the cut step restarted and the answer completed. Seen both
    // in CI at load 30; the text must be exact either way.
    const restarted = events.map((e) => e.type).lastIndexOf('step-restarted');
    if (restarted >= 0) {
      expect(events[restarted]).toMatchObject({ type: 'step-restarted', reason: 'takeover' });
      expect(textOf(events.slice(restarted))).toBe(WORDS.join(''));
      expect(all.at(-1)!.event).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
      return;
    }
    expect(WORDS.join('').startsWith(textOf(events))).toBe(true);
    expect(all.at(-1)!.event).toMatchObject({ type: 'chat-finish', haltReason: 'error' });
    const ending = all.at(-1)!.event as { error?: { code: string } };
    expect(['store_unavailable', 'run_lost']).toContain(ending.error?.code);
  }, 60_000);

  it('restarted empty (its data lost): the live reader gets a typed error frame, a resume a typed 404', async () => {
    const url = await serverProcess({ MOCK_URL: mock.url });
    const response = await post(url);
    const runId = response.headers.get('x-parlance-run-id')!;
    const stream = frames(response);
    await read(stream, (seen) => seen.filter((s) => s.event.type === 'text-delta').length === 3);
    await redis.stop();
    rmSync(join(dir, 'appendonlydir'), { recursive: true, force: true });
    redis = await startRedis({ port, aofDir: dir });
    const rest = await read(stream);
    expect(rest.ended).toBe(true);
    // Never a stream that simply stops: its last frame is a typed error (or the run's one ending).
    const last = rest.seen.at(-1)!.event;
    expect(last.type === 'error' || last.type === 'chat-finish').toBe(true);
    let status = 0;
    // Up to 15 s of 503s while the server's Redis client reconnects (it took over 5 s at load 25).
    for (let i = 0; i < 150; i++) {
      const again = await fetch(`${url}/runs/${runId}/events`);
      status = again.status;
      await again.body?.cancel();
      if (status !== 503) break;
      await sleep(100);
    }
    expect(status).toBe(404);
  }, 60_000);
});

describe('an endless upstream and a reader that never reads (Redis store)', () => {
  it('reads the upstream no faster than Redis stores it, then ends the run once on cancel', async () => {
    const url = await serverProcess({ MOCK_URL: endless.url });
    const admin = new Redis(`redis://127.0.0.1:${port}`);
    try {
      const wrote = endless.written();
      const response = await post(url); // never read
      const runId = response.headers.get('x-parlance-run-id')!;
      // What Redis stored, as the upstream bytes it came from: each stored event is one upstream chunk (the
      // stored JSON of a delta is about half its chunk's bytes, so comparing bytes with bytes would count the
      // difference as unstored, and the gap would grow with every MiB stored).
      const stored = async () => Number((await admin.hget(`endless:run:{${runId}}`, 'count')) ?? 0) * endless.chunkBytes;
      // Let it run until 2 MiB are stored (a bounded wait), then compare what was read with what was stored.
      for (let i = 0; i < 200 && (await stored()) < 2 * 1024 * 1024; i++) await sleep(50);
      await sleep(1_000);
      const gap = endless.written() - wrote - (await stored());
      // Read but not stored: the engine's queue (256 KiB), the transport's chunk and the sockets' buffers.
      expect(gap).toBeLessThan(8 * 1024 * 1024);
      const cancelled = await fetch(`${url}/runs/${runId}/cancel`, { method: 'POST' });
      expect(cancelled.status).toBe(202);
      await response.body?.cancel();
      const all = await resume(url, runId, undefined);
      expectOneEnding(all);
      expect(all.at(-1)!.event).toMatchObject({ type: 'chat-finish', haltReason: 'cancelled' });
      expect(/^x*$/.test(textOf(all.map((s) => s.event)))).toBe(true);
    } finally {
      await admin.quit();
    }
  }, 60_000);
});
