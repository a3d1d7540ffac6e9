// The rate limiter on Durable Objects in workerd: separate stores (as separate isolates build
// them) count one key in one object; concurrent hits each count once; an ended window's alarm
// deletes it and an open one stays; a malformed hit is a typed 400; the chat server answers 429.
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createParlanceApp } from '../src/index.ts';
import { durableObjectRateLimitStore, type RunObjectNamespace } from '../src/durable-objects/index.ts';
import { createRateLimiter, serverRateLimit } from '../src/rate-limit.ts';
import type { ChatRunner } from '../src/server-options.ts';

const binding = (env as unknown as { PARLANCE_RATE_LIMITS: DurableObjectNamespace }).PARLANCE_RATE_LIMITS;
const namespace = binding as unknown as RunObjectNamespace;
let n = 0;

// test/helpers.ts reads fixtures from disk (Node only), so the workerd tests write their request and runner here.
const chat = (clientRequestId: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ clientRequestId, thread: { version: 1, id: 'th_1', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] } }),
});
const hello: ChatRunner = async function* () {
  yield { type: 'message-start' };
  yield { type: 'text-start', id: 't' };
  yield { type: 'text-delta', id: 't', delta: 'Hi' };
  yield { type: 'text-end', id: 't' };
  yield { type: 'finish', finishReason: 'stop', usage: {} };
  yield { type: 'chat-finish', haltReason: 'completed', usage: {} };
};

describe('durableObjectRateLimitStore (workerd)', () => {
  it("counts every instance's hits of a key in one window", async () => {
    // The limiter's clock starts at the real time: the object's alarm (real time) deletes a window that ended.
    let clock = Date.now();
    const now = () => clock;
    const name = `shared-${++n}`;
    // Two stores and two limiters, as two Worker isolates would each build their own.
    const [a, b] = [0, 1].map(() => createRateLimiter({ store: durableObjectRateLimitStore({ namespace, name }), requests: 3, windowMs: 60_000, now }));
    const results = [];
    for (const limiter of [a!, b!, a!, b!]) results.push(await limiter.check('user:1'));
    expect(results).toEqual([
      { ok: true, remaining: 2 },
      { ok: true, remaining: 1 },
      { ok: true, remaining: 0 },
      { ok: false, retryAfterSeconds: 60 },
    ]);
    expect(await b!.check('user:2')).toEqual({ ok: true, remaining: 2 });
    clock += 59_000;
    expect(await a!.check('user:1')).toEqual({ ok: false, retryAfterSeconds: 1 });
    clock += 1_000;
    expect(await b!.check('user:1')).toEqual({ ok: true, remaining: 2 });
  });

  it('counts concurrent hits once each', async () => {
    const limiter = createRateLimiter({ store: durableObjectRateLimitStore({ namespace, name: `burst-${++n}` }), requests: 5, windowMs: 60_000 });
    const results = await Promise.all(Array.from({ length: 20 }, () => limiter.check('user:burst')));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.filter((r) => r.ok).map((r) => (r.ok ? r.remaining : -1)).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it("deletes a window when its alarm runs after the window's end, and keeps an open one", async () => {
    const name = `alarm-${++n}`;
    const store = durableObjectRateLimitStore({ namespace, name });
    await store.hit('ended', 60_000, Date.now() - 120_000);
    await store.hit('open', 3_600_000, Date.now());
    const stub = (key: string) => binding.get(binding.idFromName(`${name}:${key}`));
    const stored = (key: string) => runInDurableObject(stub(key), (_instance, state) => state.storage.get('window'));
    // An alarm set in the past may have run already; this runs it if it has not.
    await runDurableObjectAlarm(stub('ended'));
    expect(await stored('ended')).toBeUndefined();
    // Run early (its time is an hour away), the alarm leaves the open window alone.
    expect(await runDurableObjectAlarm(stub('open'))).toBe(true);
    expect(await stored('open')).toMatchObject({ count: 1 });
  });

  // Every malformed field is refused alike, never counted.
  it.each([
    ['not JSON', 'hit'],
    ['no windowMs', JSON.stringify({ now: 1 })],
    ['a zero window', JSON.stringify({ windowMs: 0, now: 1 })],
    ['a negative window', JSON.stringify({ windowMs: -5, now: 1 })],
    ['a string window', JSON.stringify({ windowMs: '60000', now: 1 })],
    ['an infinite window (null in JSON)', JSON.stringify({ windowMs: Number.POSITIVE_INFINITY, now: 1 })],
    ['no now', JSON.stringify({ windowMs: 1000 })],
    ['a string now', JSON.stringify({ windowMs: 1000, now: 'today' })],
    ['null', 'null'],
  ])('answers %s with a typed 400', async (_case, body) => {
    const stub = binding.get(binding.idFromName(`bad-${++n}`));
    const response = await stub.fetch('https://rate-limit.parlance/hit', { method: 'POST', body });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.get('window'))).toBeUndefined();
  });

  it('is store_unavailable when the object cannot be reached', async () => {
    const down: RunObjectNamespace = { idFromName: (name) => name, get: () => ({ fetch: () => Promise.reject(new Error('object reset')) }) };
    await expect(durableObjectRateLimitStore({ namespace: down }).hit('k', 1000, 0)).rejects.toMatchObject({ code: 'store_unavailable', status: 503 });
  });

  it('limits the chat server: 429 rate_limited with Retry-After once the principal used its requests', async () => {
    const alice = { id: `alice-${++n}` };
    const app = createParlanceApp({
      run: hello,
      models: [{ id: 'mock:echo', provider: 'mock' }],
      env: { PARLANCE_SECRET: 'rate-limit-test-secret-0123456789abcdef' },
      authorize: () => alice,
      rateLimit: serverRateLimit(createRateLimiter({ store: durableObjectRateLimitStore({ namespace }), requests: 2, windowMs: 60_000 })),
    });
    for (const id of ['c1', 'c2']) {
      const ok = await app.request('/chat', chat(id));
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
    }
    const refused = await app.request('/chat', chat('c3'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });
});
