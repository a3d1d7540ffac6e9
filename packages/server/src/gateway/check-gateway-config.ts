/**
 * The gateway's configuration, checked once at start (never at import: a route file may build the
 * gateway at module scope): every gateway key of a `staticKeys` table (see `gatewayKeyProblems`) and
 * the weights of every balanced route.
 * The same message and error as the chat server's `checkConfig`.
 */
import { configError } from '../check-config.ts';
import type { GatewayOptions } from './options.ts';
import { balanceProblem } from './routing.ts';

/**
 * Everything wrong with the gateway's configuration, one sentence each (empty when none). Keys of an
 * `authorize` hook of your own are yours to check; a `staticKeys` table's are checked here.
 *
 * @example
 * ```ts
 * gatewayConfigProblems({ routes, authorize: staticKeys({ short: { id: 'a' } }) });
 * // ['Gateway key 1 (principal "a") is 5 characters long: a gateway key must be at least 16 (openssl rand -hex 16)']
 * ```
 */
export function gatewayConfigProblems(options: Pick<GatewayOptions, 'authorize'> & { routes?: GatewayOptions['routes'] }): string[] {
  const problems = (options.authorize as { keyProblems?: readonly string[] }).keyProblems;
  const out = Array.isArray(problems) ? [...problems] : [];
  // A balanced route with unusable weights would answer every call 404 (its model cannot be built).
  for (const [name, route] of Object.entries(options.routes ?? {})) {
    const problem = typeof route === 'object' && route !== null && 'balance' in route ? balanceProblem(route.balance) : undefined;
    if (problem) out.push(`Route "${name}" ${problem}`);
  }
  return out;
}

/**
 * Throws a ParlanceError (`server_error`) naming every gateway configuration problem: call it once at
 * start, so a bad key stops the server with a clear message.
 *
 * @example
 * ```ts
 * const options = { routes, authorize: staticKeys(JSON.parse(process.env.GATEWAY_KEYS!)) };
 * checkGatewayConfig(options); // throws "Parlance is not configured correctly: Gateway key 2 ..."
 * serve({ fetch: createGateway(options).fetch, port: 8787 });
 * ```
 */
export function checkGatewayConfig(options: Pick<GatewayOptions, 'authorize'> & { routes?: GatewayOptions['routes'] }): void {
  const problems = gatewayConfigProblems(options);
  if (problems.length > 0) throw configError(problems);
}
