/**
 * Per-key spend budgets: calls are priced from the catalog (gpt-4.1-mini: $0.40 per million input
 * tokens), summed per key and window; a key over its budget gets its caller's 429, other keys go on.
 */
import { DIALECT_IDS } from '@parlance/dialects';
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';
import { createSpendTracker, MAX_TRACKED_PRINCIPALS } from './spend.ts';
import { AUTH, post, target } from '../../test/gateway-calls.ts';

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

  it('a window starts afresh once it has passed, and a model without a price costs nothing', () => {
    let clock = 0;
    const spend = createSpendTracker(() => clock);
    const principal = { id: 'a', budget: { usd: 1, windowMs: 1000 } };
    spend.add(principal, 0.6);
    expect(spend.refusal(principal)).toBeUndefined();
    spend.add(principal, 0.6);
    spend.add(principal, undefined);
    expect(spend.refusal(principal)).toEqual({ retryAfterSeconds: 1, budget: principal.budget });
    clock = 1000;
    expect(spend.refusal(principal)).toBeUndefined();
  });

  it(`holds at most ${MAX_TRACKED_PRINCIPALS} windows`, () => {
    const spend = createSpendTracker(() => 0);
    const budget = { usd: 1, windowMs: 1000 };
    spend.add({ id: 'first', budget }, 5);
    for (let i = 0; i < MAX_TRACKED_PRINCIPALS; i++) spend.add({ id: `p${i}`, budget }, 0.01);
    // The oldest window was dropped to keep the bound: that key starts afresh.
    expect(spend.refusal({ id: 'first', budget })).toBeUndefined();
    expect(spend.refusal({ id: `p${MAX_TRACKED_PRINCIPALS - 1}`, budget })).toBeUndefined();
  });
});
