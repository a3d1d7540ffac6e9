/**
 * Weighted load balancing: a `balance` route sends each call to one target, picked by weight, and
 * goes on through its `fallbacks` when that target fails; bad weights are reported at start.
 */
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { gatewayConfigProblems } from './check-gateway-config.ts';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';
import { createRouter } from './routing.ts';
import { post, target } from '../../test/gateway-calls.ts';

const authorize = staticKeys({ k1: { id: 'a' } });
const upstream = (text: string) => mockProviderServer({ dialect: 'openai_completions', script: [{ text, usage: { inputTokens: 1, outputTokens: 1 } }] });

/** A fixed sequence of `random()` values, repeated. */
const sequence = (values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

async function answerOf(router: ReturnType<typeof createRouter>): Promise<string> {
  let text = '';
  for await (const event of router.resolve('m')!.stream({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] })) {
    if (event.type === 'text-delta') text += event.delta;
  }
  return text;
}

describe('weighted load balancing', () => {
  it('sends each call to the target its weight picks', async () => {
    const a = upstream('A');
    const b = upstream('B');
    // Weights 3 and 1: a draw below 0.75 picks a, from 0.75 up picks b.
    const router = createRouter(
      { m: { balance: [{ model: target('openai_completions', a), weight: 3 }, { model: target('openai_completions', b) }] } },
      { random: sequence([0, 0.5, 0.74, 0.75, 0.99, 0.9999999999]) },
    );
    const answers: string[] = [];
    for (let i = 0; i < 6; i++) answers.push(await answerOf(router));
    expect(answers).toEqual(['A', 'A', 'A', 'B', 'B', 'B']);
    expect(a.requests).toHaveLength(3);
    expect(b.requests).toHaveLength(3);
  });

  it('a target of weight 0 takes no calls, whatever the draw', async () => {
    const a = upstream('A');
    const b = upstream('B');
    const router = createRouter({ m: { balance: [{ model: target('openai_completions', a), weight: 0 }, { model: target('openai_completions', b), weight: 2 }] } }, { random: sequence([0, 0.3, 1]) });
    for (let i = 0; i < 3; i++) expect(await answerOf(router)).toBe('B');
    expect(a.requests).toHaveLength(0);
  });

  it('through the gateway: a failed pick goes on to the route fallbacks, and every pick is one upstream call', async () => {
    const failing = mockProviderServer({ dialect: 'openai_completions', script: [{ error: { code: 'rate_limited', message: 'Slow down', status: 429 } }] });
    const backup = upstream('backup');
    const app = createGateway({
      routes: { m: { balance: [{ model: target('openai_completions', failing), weight: 1 }], fallbacks: [target('openai_completions', backup)] } },
      authorize,
    });
    const body = (await (await post(app, 'openai_completions', 'm', false)).json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toBe('backup');
    expect(failing.requests).toHaveLength(1);
    expect(backup.requests).toHaveLength(1);
  });

  it.each([
    ['no targets', [], 'has no targets'],
    ['a negative weight', [{ model: 'openai:gpt-5-mini', weight: -1 }], 'not a finite number'],
    ['an infinite weight', [{ model: 'openai:gpt-5-mini', weight: Number.POSITIVE_INFINITY }], 'not a finite number'],
    ['a NaN weight', [{ model: 'openai:gpt-5-mini', weight: Number.NaN }], 'not a finite number'],
    ['only zero weights', [{ model: 'openai:gpt-5-mini', weight: 0 }], 'no target with a weight above 0'],
  ])('a balanced route with %s is reported at start, by route name', (_name, balance, problem) => {
    const keys = staticKeys({ 'gateway-key-0123456789': { id: 'a' } });
    expect(gatewayConfigProblems({ routes: { cheap: { balance }, fine: { balance: [{ model: 'openai:gpt-5-mini' }] } }, authorize: keys })).toEqual([expect.stringMatching(new RegExp(`^Route "cheap" .*${problem}`))]);
  });
});
