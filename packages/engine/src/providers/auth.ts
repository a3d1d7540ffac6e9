/**
 * API keys, read at call time and never stored: from the settings (a string or a
 * function) or the environment. The key only ever lives in the closure of one request.
 */
import { ParlanceError } from '@parlance/protocol';
import type { AuthDefinition, ProviderDefinition, ProviderSettings } from './types.ts';

/** `process.env` where there is one (Node, Bun, Deno's compat), looked up at call time. */
export function defaultEnv(): Record<string, string | undefined> {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return process?.env ?? {};
}

/**
 * Where requests go: `settings.baseURL`, else the definition's environment variable (as the official
 * SDK reads it), else the definition's `baseURL`. No trailing slash.
 */
export function resolveBaseURL(
  definition: Pick<ProviderDefinition, 'baseURL' | 'baseURLEnv' | 'parseBaseURLEnv' | 'baseURLFrom'>,
  settings: Pick<ProviderSettings, 'baseURL' | 'env'>,
): string {
  let url = settings.baseURL;
  if (!url && definition.baseURLEnv) {
    const value = (settings.env ?? defaultEnv())[definition.baseURLEnv]?.trim();
    if (value) url = definition.parseBaseURLEnv ? definition.parseBaseURLEnv(value) : value;
  }
  if (!url && definition.baseURLFrom) url = definition.baseURLFrom(settings.env ?? defaultEnv());
  return (url || definition.baseURL).replace(/\/+$/, '');
}

export function envNames(auth: AuthDefinition): string[] {
  if (auth === 'none' || auth.env === undefined) return [];
  return typeof auth.env === 'string' ? [auth.env] : [...auth.env];
}

/** The key for this call, or undefined when none is configured. Throws a typed error when one is required. */
export async function resolveApiKey(
  auth: AuthDefinition,
  settings: Pick<ProviderSettings, 'apiKey' | 'env'>,
  providerName: string,
): Promise<string | undefined> {
  if (auth === 'none') return undefined;
  let key: string | undefined;
  if (typeof settings.apiKey === 'function') {
    try {
      key = await settings.apiKey();
    } catch (error) {
      // The message is the caller's own code's, not the key's; keep it but do not attach the key source.
      const reason = error instanceof Error ? error.message : String(error);
      throw new ParlanceError('authentication', `Could not get the API key for ${providerName}: ${reason}`, { retryable: false });
    }
  } else if (typeof settings.apiKey === 'string') key = settings.apiKey;
  if (!key) {
    const env = settings.env ?? defaultEnv();
    for (const name of envNames(auth)) {
      const value = env[name];
      if (value) {
        key = value;
        break;
      }
    }
  }
  key = key?.trim() || undefined;
  if (!key && !auth.optional) {
    const names = envNames(auth);
    const where = names.length ? `pass apiKey or set ${names.join(' or ')}` : 'pass apiKey';
    throw new ParlanceError('authentication', `No API key for ${providerName}: ${where}`, { retryable: false });
  }
  return key;
}

export function authHeaders(auth: AuthDefinition, key: string | undefined): Record<string, string> {
  if (auth === 'none' || !key) return {};
  const header = (auth.header ?? 'authorization').toLowerCase();
  const prefix = auth.prefix ?? (header === 'authorization' ? 'Bearer ' : '');
  return { [header]: `${prefix}${key}` };
}
