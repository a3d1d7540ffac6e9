/**
 * Per-key spend budgets: calls are priced from the catalog (gpt-4.1-mini: $0.40 per million input
 * tokens), summed per key and window; a key over its budget gets its caller's 429, other keys go on.
 */
import { DIALECT_IDS } from '@parlance/dialects';
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { AUTH, post, target } from '../../test/gateway-calls.ts';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';
import { createSpendTracker, MAX_TRACKED_PRINCIPALS } from './spend.ts';
import { memorySpendStore } from './spend-store.ts';

// One million input tokens of gpt-4.1-mini: $0.40 a call.
const TURN = { text: 'Hi.', usage: { inputTokens: 1_000_000, outputTokens: 0 } };
const HOUR = 60 * 60_000;

describe('per-key spend budgets', () => {
  it.each(DIALECT_IDS)('a %s caller over its budget gets its format 429, before any upstream call; another key goes on', async (caller) => {
    const provider = mockProviderServer({ dialect: 'openai_completions', script: [TURN] });
    const costs: (number | undefined)[] = [];
    const app = createGateway({
      routes: { m: target('openai_completions', provider, 'gpt-4.1-mini') },
      authorize: staticKeys({ k1: { id: 'capped', budget: { usd: 0.5, windowMs: HOUR } }, k2: { id: 'free' } }),
      onFinish: (finish) => void costs.push(finish.usage.cost),
    });
    // $0.40, then $0.80 (the second call started under the budget), then refused.
    expect((await post(app, caller, 'm', false)).status).toBe(200);
    const streamed = await post(app, caller, 'm', true);
    expect(streamed.status).toBe(200);
    await streamed.text(); // a stream's cost counts when it ends
    const refused = await post(app, caller, 'm', false);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('budget');
    expect(provider.requests).toHaveLength(2);
    expect(costs[0]).toBeCloseTo(0.4, 6);
    // Another key is not held by this one's budget.
    expect((await post(app, caller, 'm', false, undefined, { ...AUTH, authorization: 'Bearer k2' })).status).toBe(200);
  });

  it('a window starts with the first priced call and afresh once it has passed; a model without a price costs nothing', async () => {
    let clock = 0;
    const spend = createSpendTracker(memorySpendStore(), () => clock);
    const principal = { id: 'a', budget: { usd: 1, windowMs: 1000 } };
    await spend.add(principal, 0.6);
    expect(await spend.refusal(principal)).toBeUndefined();
    clock = 400;
    await spend.add(principal, 0.6);
    await spend.add(principal, undefined);
    expect(await spend.refusal(principal)).toEqual({ retryAfterSeconds: 1, budget: principal.budget });
    clock = 1000;
    expect(await spend.refusal(principal)).toBeUndefined();
    // A budget of 0 refuses from the start, for a whole window.
    expect(await spend.refusal({ id: 'z', budget: { usd: 0, windowMs: 5000 } })).toEqual({ retryAfterSeconds: 5, budget: { usd: 0, windowMs: 5000 } });
  });

  it(`holds at most ${MAX_TRACKED_PRINCIPALS} windows in memory`, async () => {
    const spend = createSpendTracker(memorySpendStore(), () => 0);
    const budget = { usd: 1, windowMs: 1000 };
    await spend.add({ id: 'first', budget }, 5);
    for (let i = 0; i < MAX_TRACKED_PRINCIPALS; i++) await spend.add({ id: `p${i}`, budget }, 0.01);
    // The oldest window was dropped to keep the bound: that key starts afresh.
    expect(await spend.refusal({ id: 'first', budget })).toBeUndefined();
    expect(await spend.refusal({ id: `p${MAX_TRACKED_PRINCIPALS - 1}`, budget })).toBeUndefined();
  });
});
