// The gateway's spend budgets and response cache on Durable Objects in workerd: two gateway instances
// (as two isolates build them) keep one budget per key (the second answers 429 in the caller's format
// once the first spent it) and one cache; the cache object keeps its bounds; a spend window's alarm
// deletes it once ended; a malformed call is a typed 400, which the store turns into store_unavailable.

import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { DIALECT_IDS, type DialectId } from '@parlance/dialects';
import { describe, expect, it } from 'vitest';
// The handler module alone: the package index also exports the Node-only socket server.
import { mockProviderServer } from '../../testing/src/mock-server/handler.ts';
import { durableObjectResponseCacheStore, durableObjectSpendStore, type RunObjectNamespace } from '../src/durable-objects/index.ts';
import { createGateway, staticKeys } from '../src/gateway/index.ts';
import { callerRequest } from '../test/caller-request.ts';
import { PROVIDER } from '../test/gateway-providers.ts';

const binding = (env as unknown as { PARLANCE_GATEWAY: DurableObjectNamespace }).PARLANCE_GATEWAY;
const namespace = binding as unknown as RunObjectNamespace;
const HOUR = 60 * 60_000;
const authorize = staticKeys({ k1: { id: 'capped', budget: { usd: 0.5, windowMs: HOUR } }, k2: { id: 'free' } });
// One million input tokens of gpt-4.1-mini: $0.40 a call.
const TURN = { text: 'Hi.', usage: { inputTokens: 1_000_000, outputTokens: 0 } };

function post(app: ReturnType<typeof createGateway>, caller: DialectId, key = 'k1') {
  const { path, body } = callerRequest(caller, 'm', false);
  return app.request(path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function route(handler: (request: Request) => Response | Promise<Response>) {
  return { m: { ...PROVIDER.openai_completions, model: 'gpt-4.1-mini', baseURL: 'https://openai.mock', apiKey: 'provider-key', retry: false, fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise.resolve(handler(new Request(input, init))) } };
}

describe('the gateway stores on Durable Objects (workerd)', () => {
  it.each(DIALECT_IDS)('two instances share one budget: the second answers a %s caller 429 once the first spent it', async (caller) => {
    const provider = mockProviderServer({ dialect: 'openai_completions', script: [TURN] });
    const instance = () => createGateway({ routes: route(provider), authorize, spendStore: durableObjectSpendStore({ namespace, name: `budget-${caller}` }) });
    const [first, second] = [instance(), instance()];
    expect((await post(first, caller)).status).toBe(200);
    expect((await post(first, caller)).status).toBe(200);
    const refused = await post(second, caller);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(HOUR / 1000 - 60);
    expect(await refused.text()).toMatch(/budget|rate/i);
    expect(provider.requests).toHaveLength(2);
    expect((await post(second, caller, 'k2')).status).toBe(200);
  });

  it('two instances share one cache', async () => {
    const provider = mockProviderServer({ dialect: 'openai_completions', script: (_request, call) => ({ text: `answer ${call}` }) });
    const instance = () => createGateway({ routes: route(provider), authorize, cache: { store: durableObjectResponseCacheStore({ namespace, name: 'shared-cache' }) } });
    const [first, second] = [instance(), instance()];
    const answered = await (await post(first, 'anthropic_messages')).text();
    const again = await post(second, 'anthropic_messages');
    expect(again.headers.get('x-parlance-cache')).toBe('hit');
    expect(await again.text()).toBe(answered);
    expect(provider.requests).toHaveLength(1);
  });

  it('keeps the cache within its bounds, oldest out first; an entry over its bound is not kept', async () => {
    const store = durableObjectResponseCacheStore({ namespace, name: 'bounded', maxEntries: 2, maxBytes: 1_000_000, maxEntryBytes: 4_000 });
    for (const n of [1, 2, 3]) await store.put(`k${n}`, { body: `{"n":${n}}`, contentType: 'application/json' }, 60_000);
    expect(await store.get('k1')).toBeUndefined();
    expect(await store.get('k2')).toEqual({ body: '{"n":2}', contentType: 'application/json' });
    await store.put('big', { body: 'x'.repeat(3_000), contentType: 'text/plain' }, 60_000);
    expect(await store.get('big')).toBeUndefined();
    const stub = binding.get(binding.idFromName('bounded:cache'));
    const stored = await runInDurableObject(stub, async (_instance, state) => [...(await state.storage.list({ prefix: 'e:' })).keys()]);
    expect(stored.sort()).toEqual(['e:k2', 'e:k3']);
  });

  it("deletes a spend window when its alarm runs after the window's end, and keeps an open one", async () => {
    const store = durableObjectSpendStore({ namespace, name: 'alarm' });
    const stub = (key: string) => binding.get(binding.idFromName(`alarm:spend:${key}`));
    const stored = (key: string) => runInDurableObject(stub(key), (_instance, state) => state.storage.get('window'));
    await store.add('ended', 1, 60_000, Date.now() - 120_000);
    await store.add('open', 1, HOUR, Date.now());
    // An alarm set in the past may have run already; this runs it if it has not.
    await runDurableObjectAlarm(stub('ended'));
    expect(await stored('ended')).toBeUndefined();
    // Run early (its time is an hour away), the alarm leaves the open window alone.
    expect(await runDurableObjectAlarm(stub('open'))).toBe(true);
    expect(await stored('open')).toMatchObject({ usd: 1 });
    expect(await store.get('open', Date.now())).toMatchObject({ usd: 1 });
  });

  it('a malformed call is a typed 400 from the object, and store_unavailable from the store', async () => {
    const stub = binding.get(binding.idFromName('bad:spend:x'));
    const response = await stub.fetch('https://gateway-store.parlance/spend/add', { method: 'POST', body: JSON.stringify({ usd: 'a lot' }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    await expect(durableObjectSpendStore({ namespace, name: 'bad' }).add('x', Number.NaN, 1000, Date.now())).rejects.toMatchObject({ code: 'store_unavailable' });
  });
});
