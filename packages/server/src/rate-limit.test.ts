import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../test/redis-server.ts';
import { chatRequest, textRunner, userThread } from '../test/helpers.ts';
import { createParlanceApp } from './handler.ts';
import { createRateLimiter, gatewayRateLimit, memoryRateLimitStore, type RateLimitStore, serverRateLimit } from './rate-limit.ts';
import { redisRateLimitStore } from './redis/redis-rate-limit-store.ts';

let server: RedisServer;
const clients: Redis[] = [];
const redis = () => {
  const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
  clients.push(client);
  return client;
};
let n = 0;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const client of clients) await client.quit();
  await server.stop();
});

/** Two stores over one backend, as two instances of a server see it. */
const STORES: [string, () => [RateLimitStore, RateLimitStore]][] = [
  ['memory', () => { const store = memoryRateLimitStore(); return [store, store]; }],
  ['redis', () => { const prefix = `rl${++n}:`; return [redisRateLimitStore({ redis: redis(), prefix }), redisRateLimitStore({ redis: redis(), prefix })]; }],
];

describe.each(STORES)('a rate limiter on the %s store', (_name, stores) => {
  it('passes `requests` hits per key and window, then refuses with the seconds left; keys count apart', async () => {
    const [store] = stores();
    const limiter = createRateLimiter({ store, requests: 3, windowMs: 60_000 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.check('alice'));
    expect(results.slice(0, 3)).toEqual([{ ok: true, remaining: 2 }, { ok: true, remaining: 1 }, { ok: true, remaining: 0 }]);
    expect(results[3]).toMatchObject({ ok: false });
    const retry = (results[3] as { retryAfterSeconds: number }).retryAfterSeconds;
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(await limiter.check('bob')).toEqual({ ok: true, remaining: 2 });
  });

  it('counts the hits of every instance on the store together', async () => {
    const [a, b] = stores();
    const one = createRateLimiter({ store: a, requests: 2, windowMs: 60_000 });
    const two = createRateLimiter({ store: b, requests: 2, windowMs: 60_000 });
    expect((await one.check('carol')).ok).toBe(true);
    expect((await two.check('carol')).ok).toBe(true);
    expect((await one.check('carol')).ok).toBe(false);
    expect((await two.check('carol')).ok).toBe(false);
  });

  it('opens a new window once the last one ended', async () => {
    const [store] = stores();
    const limiter = createRateLimiter({ store, requests: 1, windowMs: 100 });
    expect((await limiter.check('dave')).ok).toBe(true);
    expect((await limiter.check('dave')).ok).toBe(false);
    let passed = false;
    for (let i = 0; i < 100 && !passed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      passed = (await limiter.check('dave')).ok;
    }
    expect(passed).toBe(true);
  });
});

describe('memoryRateLimitStore', () => {
  it('holds at most maxKeys windows (the oldest go first)', async () => {
    const store = memoryRateLimitStore({ maxKeys: 3 });
    for (const key of ['a', 'b', 'c', 'd']) await store.hit(key, 60_000, 0);
    // 'a' was dropped to make room: its next hit starts a new window.
    expect((await store.hit('a', 60_000, 1)).count).toBe(1);
    expect((await store.hit('d', 60_000, 1)).count).toBe(2);
  });

  it('refuses a limit that allows nothing', () => {
    expect(() => createRateLimiter({ store: memoryRateLimitStore(), requests: 0, windowMs: 1000 })).toThrow(RangeError);
  });
});

describe('the same store behind the chat server and the gateway', () => {
  it('the server answers 429 rate_limited with Retry-After once the principal used its requests', async () => {
    const store = redisRateLimitStore({ redis: redis(), prefix: `srv${++n}:` });
    const { runner } = textRunner(['Hi']);
    const app = createParlanceApp({
      run: runner,
      models: [{ id: 'mock:echo', provider: 'mock' }],
      env: { PARLANCE_SECRET: 'rate-limit-test-secret-0123456789abcdef' },
      authorize: () => ({ id: 'alice' }),
      rateLimit: serverRateLimit(createRateLimiter({ store, requests: 2, windowMs: 60_000 })),
    });
    for (const id of ['c1', 'c2']) expect((await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: id }))).status).toBe(200);
    const refused = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'c3' }));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it("the gateway counts each key's own rateLimit on the store; a key without one is not limited", async () => {
    const limit = gatewayRateLimit(redisRateLimitStore({ redis: redis(), prefix: `gw${++n}:` }));
    const team = { id: 'team-a', rateLimit: { requests: 1, windowMs: 60_000 } };
    expect(await limit(team)).toBeUndefined();
    expect(await limit(team)).toMatchObject({ retryAfterSeconds: expect.any(Number) });
    expect(await limit({ id: 'free' })).toBeUndefined();
  });
});
