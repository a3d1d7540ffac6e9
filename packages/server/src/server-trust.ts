/**
 * Where the server's signing secret comes from and when a server may run without one.
 * The secret signs every tool call, result and pause a run produces, so the thread a
 * browser sends back can be verified (`createThreadTrust` in @parlance/engine). A server
 * whose runner has tools refuses to start (or, when its environment only exists per
 * request as on Workers, to answer) without one, unless it runs in development.
 */
import { createThreadTrust, type ThreadTrust } from '@parlance/engine';
import { ParlanceError } from '@parlance/protocol';
import type { Env } from './scrub.ts';

/**
 * What a runner tells the server about itself (`engineRunner` sets `runner.profile`): whether it has
 * tools (then the server must sign) and which configured values are credentials (scrubbed from events).
 *
 * @example
 * ```ts
 * const run: ChatRunner = (input) => myLoop(input);
 * run.profile = () => ({ tools: 2, secrets: [process.env.PROXY_TOKEN!] });
 * ```
 */
export interface RunnerProfile {
  /** How many server tools the runner offers the model. */
  tools: number;
  /** Credential values it was configured with (e.g. `headers`), to scrub from events. */
  secrets: string[];
  /** It goes on from `ChatRunInput.checkpoint` (`engineRunner` does): its runs can be taken over by another instance. */
  checkpoints?: boolean;
}

export interface TrustSettings {
  secret?: string | readonly string[] | undefined;
  development?: boolean | undefined;
}

/** The signing secrets: the `secret` option, else `PARLANCE_SECRET` then `PARLANCE_SECRET_PREVIOUS` (comma-separated). */
export function signingSecrets(settings: TrustSettings, env: Env): string[] | undefined {
  if (settings.secret !== undefined) {
    const list = (typeof settings.secret === 'string' ? [settings.secret] : [...settings.secret]).filter((s) => s !== '');
    return list.length ? list : undefined;
  }
  const current = env.PARLANCE_SECRET?.trim();
  if (!current) return undefined;
  const previous = (env.PARLANCE_SECRET_PREVIOUS ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  return [current, ...previous];
}

export function isDevelopment(settings: TrustSettings, env: Env): boolean {
  return settings.development ?? env.NODE_ENV === 'development';
}

export function missingSecretError(): ParlanceError {
  return new ParlanceError(
    'server_error',
    'This server runs tools, so it needs a signing secret: set PARLANCE_SECRET (32+ random characters) or the `secret` option (or `development: true` while developing)',
    { retryable: false },
  );
}

/** One verifier per secret list, built on first use (keys are imported once, lazily). */
export function createTrustResolver(settings: TrustSettings, profile: (env: Env) => RunnerProfile | undefined) {
  const cache = new Map<string, ThreadTrust>();
  return (env: Env): ThreadTrust | undefined => {
    const secrets = signingSecrets(settings, env);
    if (!secrets) {
      if (!isDevelopment(settings, env) && (profile(env)?.tools ?? 0) > 0) throw missingSecretError();
      return undefined;
    }
    const key = JSON.stringify(secrets);
    let trust = cache.get(key);
    if (!trust) {
      trust = createThreadTrust({ secret: secrets });
      if (cache.size > 8) cache.clear();
      cache.set(key, trust);
    }
    return trust;
  };
}
