import { describe, expect, it } from 'vitest';
import { checkGatewayConfig, gatewayConfigProblems } from './check-gateway-config.ts';
import { createGateway } from './gateway.ts';
import { type GatewayPrincipal, staticKeys } from './keys.ts';

const GOOD = 'gw-0123456789abcdef';
const a: GatewayPrincipal = { id: 'a' };
const b: GatewayPrincipal = { id: 'b' };

describe('gateway keys are checked once, at start', () => {
  const bad: [string, readonly (readonly [string, GatewayPrincipal])[], RegExp][] = [
    ['empty', [['', a]], /Gateway key 1 \(principal "a"\) is empty/],
    ['blank', [['   ', a]], /Gateway key 1 \(principal "a"\) is empty/],
    ['too short', [['short-key', a]], /Gateway key 1 \(principal "a"\) is 9 characters long: a gateway key must be at least 16/],
    ['one under the minimum', [['x'.repeat(15), a]], /is 15 characters long/],
    ['duplicated', [[GOOD, a], [GOOD, b]], /Gateway key 2 \(principal "b"\) is the same key as gateway key 1/],
    ['leading whitespace', [[` ${GOOD}`, a]], /Gateway key 1 \(principal "a"\) holds whitespace/],
    ['trailing newline', [[`${GOOD}\n`, a]], /holds whitespace/],
    ['inner space', [['gw-01234567 89abcdef', a]], /holds whitespace/],
    ['the same as another once trimmed', [[GOOD, a], [`${GOOD} `, b]], /Gateway key 2 \(principal "b"\) is the same key as gateway key 1/],
  ];

  it.each(bad)('%s: a configuration problem naming the key by place and principal, never its value', (_label, keys, message) => {
    // Building the gateway never throws (a route file may build it at import).
    const options = { routes: { m: 'openai:gpt-5-mini' }, authorize: staticKeys(keys) };
    expect(() => createGateway(options)).not.toThrow();
    const problems = gatewayConfigProblems(options);
    expect(problems.join('\n')).toMatch(message);
    for (const [key] of keys) if (key.trim().length >= 4) for (const problem of problems) expect(problem).not.toContain(key.trim());
    expect(() => checkGatewayConfig(options)).toThrow(expect.objectContaining({ code: 'server_error', message: expect.stringMatching(/^Parlance is not configured correctly: /) }));
  });

  it('good keys (an object or [key, principal] pairs) pass and still authorize', async () => {
    const table = staticKeys({ [GOOD]: a, 'gw-fedcba9876543210': b });
    expect(gatewayConfigProblems({ authorize: table })).toEqual([]);
    expect(() => checkGatewayConfig({ authorize: table })).not.toThrow();
    expect(await table(GOOD)).toBe(a);
    const pairs = staticKeys([[GOOD, a]]);
    expect(pairs.keyProblems).toEqual([]);
    expect(await pairs('gw-fedcba9876543210')).toBeUndefined();
  });

  it('an authorize hook of your own has nothing to check', () => {
    expect(gatewayConfigProblems({ authorize: () => undefined })).toEqual([]);
  });
});
