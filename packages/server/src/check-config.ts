/**
 * The server's configuration, checked once and never at import: a Next.js route file builds its
 * handler at module scope, and `next build` evaluates it with no environment, so building an app
 * checks nothing. What is checked: every signing key (the `secret` option, or `PARLANCE_SECRET`
 * and each `PARLANCE_SECRET_PREVIOUS` entry) is at least 32 characters, and a server whose runner
 * has tools has one (unless in development). A long-running server calls `checkConfig` at start and
 * stops with its message; every server also checks at its first request (per environment) and,
 * when something is wrong, answers every request with that clear, typed error.
 */
import { MIN_SECRET_LENGTH } from '@parlance/engine';
import { ParlanceError } from '@parlance/protocol';
import { type Env, startEnv } from './runtime-env.ts';
import type { ParlanceServerOptions } from './server-options.ts';
import { isDevelopment } from './server-trust.ts';

/**
 * Everything wrong with the configuration in `env`, one sentence each naming the setting (empty when none).
 *
 * @example
 * configProblems({ models, run }, { PARLANCE_SECRET: 'x'.repeat(40), PARLANCE_SECRET_PREVIOUS: 'short' });
 * // ['PARLANCE_SECRET_PREVIOUS (entry 1) is 5 characters long: a signing key must be at least 32']
 */
export function configProblems(options: Pick<ParlanceServerOptions, 'run'> & Partial<ParlanceServerOptions>, env: Env): string[] {
  const problems: string[] = [];
  const named: [string, string][] = [];
  if (options.secret !== undefined) {
    const list = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
    list.forEach((s, i) => {
      named.push([typeof options.secret === 'string' ? 'The `secret` option' : `The \`secret\` option (entry ${i + 1})`, s]);
    });
  } else {
    const current = env.PARLANCE_SECRET?.trim();
    if (current) named.push(['PARLANCE_SECRET', current]);
    // Empty entries (a trailing comma) are no key, as `signingSecrets` reads them.
    const previous = (env.PARLANCE_SECRET_PREVIOUS ?? '').split(',').map((s) => s.trim());
    previous.forEach((s, i) => {
      if (s !== '') named.push([`PARLANCE_SECRET_PREVIOUS (entry ${i + 1})`, s]);
    });
    if (!current && env.PARLANCE_SECRET_PREVIOUS?.trim()) problems.push('PARLANCE_SECRET_PREVIOUS is set but PARLANCE_SECRET is not: the current key signs, the previous ones only verify');
  }
  for (const [name, value] of named) {
    if (value.length < MIN_SECRET_LENGTH) problems.push(`${name} is ${value.length} characters long: a signing key must be at least ${MIN_SECRET_LENGTH} (openssl rand -hex 32)`);
  }
  const tools = options.run.profile?.(env)?.tools ?? 0;
  if (named.length === 0 && tools > 0 && !isDevelopment(options, env)) {
    problems.push('This server runs tools, so it needs a signing secret: set PARLANCE_SECRET (32+ random characters) or the `secret` option (or `development: true` while developing)');
  }
  if (named.length === 0 && options.files && !isDevelopment(options, env)) {
    problems.push('This server stores files (`files`), and signs the references it answers: set PARLANCE_SECRET (32+ random characters) or the `secret` option (or `development: true` while developing)');
  }
  return problems;
}

/** The typed error for a list of problems. */
export function configError(problems: readonly string[]): ParlanceError {
  return new ParlanceError('server_error', `Parlance is not configured correctly: ${problems.join('; ')}`, { status: 500, retryable: false });
}

/**
 * Throws a ParlanceError (`server_error`) naming every configuration problem (see `configProblems`) in
 * `env` (default: `options.env`, else `process.env`). Call it once at start in a long-running server,
 * so a bad key stops it with a clear message instead of failing requests.
 *
 * @example
 * ```ts
 * const options = { models, run: engineRunner({ engine: { tools } }) };
 * try {
 *   checkConfig(options);
 * } catch (error) {
 *   console.error((error as Error).message);
 *   process.exit(1);
 * }
 * serve({ fetch: createParlanceApp(options).fetch, port: 3000 });
 * ```
 */
export function checkConfig(options: Pick<ParlanceServerOptions, 'run'> & Partial<ParlanceServerOptions>, env: Env = startEnv(options.env) ?? {}): void {
  const problems = configProblems(options, env);
  if (problems.length > 0) throw configError(problems);
}
