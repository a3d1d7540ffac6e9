/**
 * Google service-account auth without a Google SDK: a JWT signed with the key's RS256 private key
 * (jose, Web Crypto underneath, so it runs on Workers), exchanged at the key's `token_uri` for an
 * OAuth access token (https://developers.google.com/identity/protocols/oauth2/service-account#httprest),
 * cached until five minutes before it expires; concurrent calls share one exchange.
 */
import { ParlanceError } from '@parlance/protocol';
import { importPKCS8, SignJWT } from 'jose';
import { isRedirectFailure, isRedirectStatus, NO_REDIRECT } from '../../transport/redirect.ts';

/**
 * The OAuth scope every Vertex AI call needs.
 *
 * @example
 * serviceAccountTokens(key, { scope: CLOUD_PLATFORM_SCOPE });
 */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** A token is refreshed this long before it expires, so a call never starts with one about to lapse. */
const REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * The fields of a service-account key file that signing needs (the parsed JSON key is accepted as is).
 *
 * @example
 * const key: ServiceAccountKey = JSON.parse(env.GOOGLE_SERVICE_ACCOUNT_JSON);
 */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string | undefined;
  /** Where the JWT is exchanged (default Google's `https://oauth2.googleapis.com/token`). */
  token_uri?: string | undefined;
}

/**
 * A source of access tokens: `get()` returns a valid one (cached), `clear()` forgets it.
 *
 * @example
 * const tokens = serviceAccountTokens(key, { fetch });
 * const token = await tokens.get();
 */
export interface AccessTokenSource {
  get(): Promise<string>;
  clear(): void;
}

/**
 * Options of `serviceAccountTokens`.
 *
 * @example
 * serviceAccountTokens(key, { fetch: customFetch, now: () => Date.now() });
 */
export interface ServiceAccountTokenOptions {
  fetch?: typeof globalThis.fetch | undefined;
  /** The clock (default Date.now): when the JWT is issued and when the cached token expires. */
  now?: () => number;
  scope?: string;
}

/**
 * A service-account key from `GOOGLE_CLIENT_EMAIL`, `GOOGLE_PRIVATE_KEY` (`\n` escapes allowed) and
 * `GOOGLE_PRIVATE_KEY_ID` (the variables the AI SDK's edge Vertex provider reads), or undefined.
 *
 * @example
 * serviceAccountFromEnv(env)?.client_email;
 */
export function serviceAccountFromEnv(env: Record<string, string | undefined>): ServiceAccountKey | undefined {
  const email = env.GOOGLE_CLIENT_EMAIL?.trim();
  const key = env.GOOGLE_PRIVATE_KEY?.replace(/\\n/g, '\n').trim();
  if (!email || !key) return undefined;
  const id = env.GOOGLE_PRIVATE_KEY_ID?.trim();
  return id ? { client_email: email, private_key: key, private_key_id: id } : { client_email: email, private_key: key };
}

const REDIRECTED = 'the token endpoint answered with a redirect, which is not followed (it would carry the signed assertion to another address): set token_uri to the endpoint itself';

function failed(message: string, status?: number): ParlanceError {
  return new ParlanceError('authentication', `Could not get a Google access token: ${message}`, { retryable: status !== undefined && status >= 500, ...(status ? { status } : {}) });
}

/**
 * Access tokens for a service account, cached until five minutes before expiry (one token per source).
 *
 * @example
 * const tokens = serviceAccountTokens(JSON.parse(keyJson));
 * const headers = { authorization: `Bearer ${await tokens.get()}` };
 */
export function serviceAccountTokens(key: ServiceAccountKey, options: ServiceAccountTokenOptions = {}): AccessTokenSource {
  const now = options.now ?? Date.now;
  const tokenURI = key.token_uri ?? GOOGLE_TOKEN_URI;
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function exchange(): Promise<string> {
    if (!key.client_email || !key.private_key) throw failed('the service-account key has no client_email or private_key');
    let signingKey: CryptoKey;
    try {
      signingKey = await importPKCS8(key.private_key, 'RS256');
    } catch {
      // Never the key text in a message: only that it is not a PKCS#8 PEM key.
      throw failed('the service-account private_key is not a PKCS#8 PEM RSA key');
    }
    const issuedAt = Math.floor(now() / 1000);
    const assertion = await new SignJWT({ scope: options.scope ?? CLOUD_PLATFORM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) })
      .setIssuer(key.client_email)
      .setAudience(tokenURI)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 3600)
      .sign(signingKey);
    const fetch = options.fetch ?? globalThis.fetch;
    let response: Response;
    try {
      response = await fetch(tokenURI, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
        // A 307 or 308 would send the signed assertion on to wherever it points (transport/redirect.ts).
        redirect: NO_REDIRECT,
      });
    } catch (error) {
      if (isRedirectFailure(error)) throw failed(REDIRECTED);
      throw new ParlanceError('network', `Could not reach the Google token endpoint: ${error instanceof Error ? error.message : String(error)}`, { retryable: true });
    }
    if (isRedirectStatus(response.status)) {
      response.body?.cancel().catch(() => {});
      throw failed(REDIRECTED);
    }
    const text = await response.text();
    let json: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      json = JSON.parse(text);
    } catch {}
    if (!response.ok || typeof json.access_token !== 'string') {
      const reason = [json.error, json.error_description].filter((v) => typeof v === 'string').join(': ') || `HTTP ${response.status}`;
      throw failed(reason.slice(0, 300), response.status);
    }
    const seconds = typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 3600;
    cached = { token: json.access_token, expiresAt: now() + seconds * 1000 };
    return json.access_token;
  }

  return {
    get() {
      if (cached && cached.expiresAt - REFRESH_MARGIN_MS > now()) return Promise.resolve(cached.token);
      pending ??= exchange().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    clear() {
      cached = undefined;
    },
  };
}
