/**
 * The gateway's spend budgets and response cache on a real redis-server: two gateway instances (each
 * with its own connection) keep one budget per key and one cache; the Redis store's bounds hold; and
 * with Redis stopped a budgeted call is refused 503 `store_unavailable` in the caller's format (fail
 * closed) while the cache fails open (the call goes upstream).
 */
import { DIALECT_IDS, type DialectId } from '@parlance/dialects';
import { mockProviderServer } from '@parlance/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, post, target } from '../../test/gateway-calls.ts';
import { type RedisServer, startRedis } from '../../test/redis-server.ts';
import { createGateway } from '../gateway/gateway.ts';
import { staticKeys } from '../gateway/keys.ts';
import type { GatewayStoreOperation } from '../gateway/options.ts';
import { createResponseCache } from '../gateway/response-cache.ts';
import { redisResponseCacheStore, redisSpendStore } from './redis-gateway-stores.ts';

// One million input tokens of gpt-4.1-mini: $0.40 a call.
const TURN = { text: 'Hi.', usage: { inputTokens: 1_000_000, outputTokens: 0 } };
const HOUR = 60 * 60_000;
const authorize = staticKeys({ k1: { id: 'capped', budget: { usd: 0.5, windowMs: HOUR } }, k2: { id: 'free' } });
const OTHER_KEY = { ...AUTH, authorization: 'Bearer k2' };

/** How each caller's API says "rate limited" in its error body. */
const RATE_LIMITED: Record<DialectId, (body: any) => boolean> = {
  openai_completions: (body) => typeof body.error?.message === 'string' && body.error.message.includes('budget'),
  openai_responses: (body) => typeof body.error?.message === 'string' && body.error.message.includes('budget'),
  anthropic_messages: (body) => body.type === 'error' && body.error?.type === 'rate_limit_error',
  google_gemini: (body) => body.error?.status === 'RESOURCE_EXHAUSTED',
  ollama_chat: (body) => typeof body.error === 'string' && body.error.includes('budget'),
};

let server: RedisServer;
const clients: Redis[] = [];
/** A connection of its own, as a separate gateway instance would have (ready: no offline queue, so a Redis that is down fails at once). */
const connect = async (url = server.url) => {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: 2_000 });
  redis.on('error', () => {});
  clients.push(redis);
  await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
};

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const redis of clients) redis.disconnect();
  await server.stop();
});

describe('two gateway instances on one Redis', () => {
  it.each(DIALECT_IDS)('share one budget: once the first spent it, the second answers a %s caller 429 in its format', async (caller) => {
    const provider = mockProviderServer({ dialect: 'openai_completions', script: [TURN] });
    const instance = async () =>
      createGateway({ routes: { m: target('openai_completions', provider, 'gpt-4.1-mini') }, authorize, spendStore: redisSpendStore({ redis: await connect(), prefix: `budget-${caller}:` }) });
    const [first, second] = [await instance(), await instance()];
    expect((await post(first, caller, 'm', false)).status).toBe(200);
    const streamed = await post(first, caller, 'm', true);
    await streamed.text(); // a stream's cost counts before it ends
    const refused = await post(second, caller, 'm', false);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(HOUR / 1000 - 60);
    expect(RATE_LIMITED[caller](await refused.json())).toBe(true);
    expect(provider.requests).toHaveLength(2);
    // Another key is not held by this one's budget, on either instance.
    expect((await post(second, caller, 'm', false, undefined, OTHER_KEY)).status).toBe(200);
  });

  it.each(DIALECT_IDS)('share one cache: a %s request the first answered is answered by the second from Redis', async (caller) => {
    const provider = mockProviderServer({ dialect: 'openai_completions', script: (_request, call) => ({ text: `answer ${call}` }) });
    const instance = async () => createGateway({ routes: { m: target('openai_completions', provider) }, authorize, cache: { store: redisResponseCacheStore({ redis: await connect(), prefix: `cache-${caller}:` }) } });
    const [first, second] = [await instance(), await instance()];
    const answered = await (await post(first, caller, 'm', false)).text();
    const again = await post(second, caller, 'm', false);
    expect(again.headers.get('x-parlance-cache')).toBe('hit');
    expect(await again.text()).toBe(answered);
    expect(provider.requests).toHaveLength(1);
    // Never across keys.
    expect(await (await post(second, caller, 'm', false, undefined, OTHER_KEY)).text()).not.toBe(answered);
    expect(provider.requests).toHaveLength(2);
  });
});

describe('the Redis cache store', () => {
  it('is bounded: entries, bytes and entry size; the oldest out first; entries expire', async () => {
    const redis = await connect();
    const store = redisResponseCacheStore({ redis, prefix: 'bounds:', maxEntries: 2, maxBytes: 4_000, maxEntryBytes: 3_000 });
    const cache = createResponseCache({ store, ttlMs: 60_000 });
    const key = (n: number) => cache.keyOf({ id: 'a' }, 'openai_completions', 'm', { model: 'm', messages: [], temperature: n });
    const put = async (n: number, body = JSON.stringify({ n })) => cache.put(await key(n), body, 'application/json');
    await put(1);
    await put(2);
    await put(3);
    expect(await cache.get(await key(1))).toBeUndefined();
    expect(await cache.get(await key(2))).toBeDefined();
    expect(await redis.zcard('bounds:{gateway-cache}:index')).toBe(2);
    // Over an entry's bound: not kept. Two entries over the byte bound together: the older goes.
    await put(4, 'x'.repeat(3_000));
    expect(await cache.get(await key(4))).toBeUndefined();
    await put(5, 'y'.repeat(2_000));
    await put(6, 'z'.repeat(2_000));
    expect(await cache.get(await key(5))).toBeUndefined();
    expect(await cache.get(await key(6))).toBeDefined();
    expect(Number(await redis.get('bounds:{gateway-cache}:bytes'))).toBeLessThanOrEqual(4_000);
    // Entries carry their ttl in Redis.
    const ttl = await redis.pttl(`bounds:{gateway-cache}:e:${await key(6)}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

describe('with Redis stopped', () => {
  it.each(DIALECT_IDS)('a budgeted %s call is refused 503 store_unavailable in its format (fail closed); the cache is a miss (fail open)', async (caller) => {
    const down = await startRedis();
    const redis = await connect(down.url);
    await down.stop();
    const provider = mockProviderServer({ dialect: 'openai_completions', script: (_request, call) => ({ text: `answer ${call}` }) });
    const failures: { code: string; operation: GatewayStoreOperation }[] = [];
    const app = createGateway({
      routes: { m: target('openai_completions', provider, 'gpt-4.1-mini') },
      authorize,
      spendStore: redisSpendStore({ redis }),
      cache: { store: redisResponseCacheStore({ redis }) },
      onStoreError: (error, { operation }) => void failures.push({ code: error.code, operation }),
    });
    const refused = await post(app, caller, 'm', false);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.text()).toContain('spend budget store is not available');
    expect(provider.requests).toHaveLength(0);
    // A key without a budget never reads the spend store; the cache fails open: the call goes upstream.
    expect((await post(app, caller, 'm', false, undefined, OTHER_KEY)).status).toBe(200);
    expect(provider.requests).toHaveLength(1);
    expect(failures).toEqual([
      { code: 'store_unavailable', operation: 'spend-check' },
      { code: 'store_unavailable', operation: 'cache-get' },
      { code: 'store_unavailable', operation: 'cache-put' },
    ]);
  });
});
