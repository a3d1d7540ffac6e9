// The AI SDK route on two app instances sharing one real redis-server (issue #26, item 4): the
// chat -> run map lives in the run store, so a resume (useChat({ resume: true }) after a reload)
// routed to the other instance finds the run, and the first instance does not cancel it as
// abandoned while the user reads it there.
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAiSdkRoutes } from '../src/frontends/index.ts';
import { createRedisRunStore, type RedisRunStore } from '../src/redis/index.ts';
import { gate, textRunner } from './helpers.ts';
import { type RedisServer, startRedis } from './redis-server.ts';

let redis: RedisServer;
const opened: { store: RedisRunStore; client: Redis }[] = [];
beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterAll(async () => {
  for (const { store, client } of opened) {
    await store.close();
    await client.quit();
  }
  await redis?.stop();
});

const WORDS = ['one ', 'two ', 'three ', 'four'];
// The first instance's grace for a reader to come back (elsewhere): 100 ms was shorter than the
// resume request on the other instance took in a CI run at load 30.
const GRACE_MS = 1_000;

function instance(run: ReturnType<typeof textRunner>['runner']) {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  const store = createRedisRunStore({ redis: client, prefix: 'aisdk:' });
  opened.push({ store, client });
  const app = new Hono();
  app.route('/api/chat', createAiSdkRoutes({ models: [{ id: 'mock:echo', provider: 'mock' }], run, store, cancelAbandonedAfterMs: GRACE_MS, onError: () => {} }));
  return app;
}

/** The UI message chunks of an AI SDK stream, read until `stop` says so or the stream ends. */
async function chunks(response: Response, stop: (chunk: Record<string, unknown>) => boolean = () => false) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const out: Record<string, unknown>[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { out, done: true, reader };
    buffer += decoder.decode(value, { stream: true });
    let at = buffer.indexOf('\n\n');
    while (at >= 0) {
      const frame = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      at = buffer.indexOf('\n\n');
      if (!frame.startsWith('data: ')) continue;
      const data = frame.slice(6);
      const chunk = data === '[DONE]' ? { type: '[DONE]' } : (JSON.parse(data) as Record<string, unknown>);
      out.push(chunk);
      if (stop(chunk)) return { out, done: false, reader };
    }
  }
}

const text = (list: Record<string, unknown>[]) => list.filter((c) => c.type === 'text-delta').map((c) => c.delta).join('');

describe('the AI SDK route on two instances over one Redis', () => {
  it('resumes a chat on the other instance, and the first does not cancel it as abandoned', async () => {
    const held = gate();
    const runner = textRunner(WORDS, { gates: [Promise.resolve(), held.promise] });
    const a = instance(runner.runner);
    const b = instance(runner.runner);
    const body = { id: 'chat-1', trigger: 'submit-message', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] };
    const posted = await a.request('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(posted.status).toBe(200);
    const first = await chunks(posted, (c) => c.type === 'text-delta');
    expect(text(first.out)).toBe('one ');
    // The tab reloads: its connection to A goes, and the resume lands on B.
    await first.reader.cancel();
    const resumed = await b.request('/api/chat/chat-1/stream');
    expect(resumed.status).toBe(200);
    // Past A's grace for abandoned runs: the run must still be going (B has a reader).
    await new Promise((r) => setTimeout(r, GRACE_MS * 4));
    expect(runner.calls[0]!.signal.aborted).toBe(false);
    held.open();
    const rest = await chunks(resumed);
    expect(rest.done).toBe(true);
    expect(text(rest.out)).toBe(WORDS.join(''));
    expect(rest.out.at(-1)).toEqual({ type: '[DONE]' });
    expect(rest.out.filter((c) => c.type === 'finish')).toHaveLength(1);
    // Delivered, the message stays replayable (its last frames may sit in a reloading browser), from either instance.
    for (const app of [a, b]) {
      const replay = await chunks(await app.request('/api/chat/chat-1/stream'));
      expect(text(replay.out)).toBe(WORDS.join(''));
    }
  }, 30_000);

  it('a chat whose reader left on one instance and came back nowhere is cancelled (one instance decides)', async () => {
    const held = gate();
    const runner = textRunner(WORDS, { gates: [Promise.resolve(), held.promise] });
    const a = instance(runner.runner);
    instance(runner.runner);
    const body = { id: 'chat-2', trigger: 'submit-message', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] };
    const posted = await a.request('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const first = await chunks(posted, (c) => c.type === 'text-delta');
    await first.reader.cancel();
    for (let i = 0; i < 100 && !runner.calls[0]!.signal.aborted; i++) await new Promise((r) => setTimeout(r, 20));
    expect(runner.calls[0]!.signal.aborted).toBe(true);
  }, 30_000);
});
