/**
 * The opt-in exact-match response cache: the same non-streamed request from the same key is answered
 * again without an upstream call; never across keys, never for streams; bounded by entries and bytes.
 */
import { DIALECT_IDS } from '@parlance/dialects';
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { AUTH, post, target } from '../../test/gateway-calls.ts';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';
import { createResponseCache } from './response-cache.ts';
import { memoryResponseCacheStore } from './response-cache-store.ts';

const authorize = staticKeys({ k1: { id: 'a' }, k2: { id: 'b' } });
const OTHER_KEY = { ...AUTH, authorization: 'Bearer k2' };

describe('the response cache', () => {
  it.each(DIALECT_IDS)('a %s caller: the same request from the same key is answered from the cache; another key, request or a stream is not', async (caller) => {
    const provider = mockProviderServer({ dialect: 'openai_completions', script: (_request, call) => ({ text: `answer ${call}` }) });
    const finishes: unknown[] = [];
    const app = createGateway({ routes: { m: target('openai_completions', provider) }, authorize, cache: true, onFinish: (f) => void finishes.push(f) });
    const first = await (await post(app, caller, 'm', false)).text();
    const again = await post(app, caller, 'm', false);
    expect(again.headers.get('x-parlance-cache')).toBe('hit');
    expect(await again.text()).toBe(first);
    expect(provider.requests).toHaveLength(1);
    expect(finishes).toHaveLength(1);
    // Never across keys.
    expect(await (await post(app, caller, 'm', false, undefined, OTHER_KEY)).text()).not.toBe(first);
    expect(provider.requests).toHaveLength(2);
    // Another request, or a stream, goes upstream.
    const warmer = caller === 'google_gemini' ? { generationConfig: { temperature: 0.3 } } : caller === 'ollama_chat' ? { options: { temperature: 0.3 } } : { temperature: 0.3 };
    await (await post(app, caller, 'm', false, warmer)).text();
    expect(provider.requests).toHaveLength(3);
    await (await post(app, caller, 'm', true)).text();
    expect(provider.requests).toHaveLength(4);
  });

  it('keeps no failure, and is off unless asked for', async () => {
    const failing = mockProviderServer({ dialect: 'openai_completions', script: [{ error: { code: 'overloaded', message: 'Busy', status: 503 } }] });
    const cached = createGateway({ routes: { m: target('openai_completions', failing) }, authorize, cache: true });
    expect((await post(cached, 'openai_completions', 'm', false)).status).toBe(503);
    expect((await post(cached, 'openai_completions', 'm', false)).status).toBe(503);
    expect(failing.requests).toHaveLength(2);
    const provider = mockProviderServer({ dialect: 'openai_completions', script: [{ text: 'x' }] });
    const plain = createGateway({ routes: { m: target('openai_completions', provider) }, authorize });
    await (await post(plain, 'openai_completions', 'm', false)).text();
    await (await post(plain, 'openai_completions', 'm', false)).text();
    expect(provider.requests).toHaveLength(2);
  });

  it('is bounded in memory: entries, bytes, entry size and age, least recently used out first', async () => {
    let clock = 0;
    const store = memoryResponseCacheStore({ maxEntries: 2, maxBytes: 10_000, maxEntryBytes: 4_000 }, () => clock);
    const cache = createResponseCache({ store, ttlMs: 100 });
    const principal = { id: 'a' };
    const key = (n: number) => cache.keyOf(principal, 'openai_completions', 'm', { model: 'm', messages: [], temperature: n });
    const put = async (n: number, body = JSON.stringify({ n })) => cache.put(await key(n), body, 'application/json');
    await put(1);
    await put(2);
    expect(await cache.get(await key(1))).toBeDefined(); // 1 is now the most recently used
    await put(3);
    expect(await cache.get(await key(2))).toBeUndefined();
    expect(await cache.get(await key(1))).toBeDefined();
    expect(store.size().entries).toBe(2);
    // An answer larger than an entry may be is not kept.
    await put(4, 'x'.repeat(3_000));
    expect(await cache.get(await key(4))).toBeUndefined();
    expect(store.size().bytes).toBeLessThanOrEqual(10_000);
    clock = 100;
    expect(await cache.get(await key(1))).toBeUndefined();
  });
});
