/**
 * A mock Google OAuth token endpoint and a mock Vertex AI, checking auth the way Google does: the token
 * endpoint verifies the service account's JWT (RS256 signature against the key's public half with Web
 * Crypto, issuer, audience, scope, lifetime) before issuing an access token; Vertex accepts only tokens
 * that endpoint issued (or an express-mode API key) and the URL shapes Vertex serves, then answers from a
 * script: Gemini's stream for `:streamGenerateContent`, Anthropic's for Claude's `:streamRawPredict`.
 * https://developers.google.com/identity/protocols/oauth2/service-account#httprest
 */
import { mockProviderServer, type MockProviderHandler, type MockScript, type RecordedRequest } from '../mock-server/handler.ts';

/**
 * What the token endpoint trusts: one service account and its public key (SPKI PEM).
 *
 * @example
 * const options: MockGoogleTokenOptions = { clientEmail: 'bot@acme.iam.gserviceaccount.com', publicKey: spkiPem, tokenURI: 'https://oauth2.googleapis.com/token' };
 */
export interface MockGoogleTokenOptions {
  clientEmail: string;
  publicKey: string;
  /** The audience the JWT must name (the key's `token_uri`). */
  tokenURI: string;
  /** The server's clock (default Date.now). */
  now?: () => number;
  /** Seconds each issued token lives (default 3600). */
  expiresIn?: number;
}

/**
 * A token endpoint as a fetch handler: `issued` holds the tokens it gave out, `exchanges` counts the JWTs it accepted.
 *
 * @example
 * const google = mockGoogleTokenEndpoint({ clientEmail, publicKey, tokenURI });
 * const response = await google(new Request(tokenURI, { method: 'POST', body }));
 */
export interface MockGoogleTokenEndpoint {
  (request: Request): Promise<Response>;
  readonly issued: Set<string>;
  exchanges(): number;
}

function b64url(text: string): Uint8Array<ArrayBuffer> {
  const base = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base + '='.repeat((4 - (base.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function pemBody(pem: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '')), (c) => c.charCodeAt(0));
}

/**
 * A mock Google OAuth token endpoint that verifies each JWT assertion's signature before issuing a token.
 *
 * @example
 * const google = mockGoogleTokenEndpoint({ clientEmail: key.client_email, publicKey, tokenURI: key.token_uri });
 */
export function mockGoogleTokenEndpoint(options: MockGoogleTokenOptions): MockGoogleTokenEndpoint {
  const issued = new Set<string>();
  let exchanges = 0;
  let keyPromise: Promise<CryptoKey> | undefined;
  const deny = (description: string) => Response.json({ error: 'invalid_grant', error_description: description }, { status: 400 });

  const handler = async (request: Request): Promise<Response> => {
    const form = new URLSearchParams(await request.text());
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return Response.json({ error: 'unsupported_grant_type' }, { status: 400 });
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return deny('Invalid JWT: not three parts');
    const [head, body, signature] = parts as [string, string, string];
    keyPromise ??= crypto.subtle.importKey('spki', pemBody(options.publicKey), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
    const valid = await crypto.subtle.verify('RSASSA-PKCS1-v1_5', await keyPromise, b64url(signature), new TextEncoder().encode(`${head}.${body}`));
    if (!valid) return deny('Invalid JWT Signature.');
    const header = JSON.parse(new TextDecoder().decode(b64url(head))) as { alg?: string };
    const claims = JSON.parse(new TextDecoder().decode(b64url(body))) as { iss?: string; aud?: string; scope?: string; iat?: number; exp?: number };
    if (header.alg !== 'RS256') return deny('Invalid JWT: alg must be RS256');
    if (claims.iss !== options.clientEmail) return deny('Invalid JWT: unknown issuer');
    if (claims.aud !== options.tokenURI) return deny('Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values');
    const now = Math.floor((options.now ?? Date.now)() / 1000);
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || claims.exp - claims.iat > 3600 || claims.exp < now || claims.iat > now + 300) {
      return deny('Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.');
    }
    if (!claims.scope?.split(' ').includes('https://www.googleapis.com/auth/cloud-platform')) return deny('Invalid OAuth scope or ID token audience provided.');
    exchanges++;
    const token = `ya29.mock-${exchanges}-${crypto.randomUUID()}`;
    issued.add(token);
    return Response.json({ access_token: token, expires_in: options.expiresIn ?? 3600, token_type: 'Bearer' });
  };
  return Object.assign(handler, { issued, exchanges: () => exchanges });
}

/**
 * What the mock Vertex AI accepts: the project and location it serves, valid tokens, an express-mode key.
 *
 * @example
 * const options: MockVertexOptions = { project: 'acme-prod', location: 'us-central1', tokens: google.issued, script: [{ text: 'Hi' }] };
 */
export interface MockVertexOptions {
  project: string;
  location: string;
  script: MockScript;
  /** Access tokens accepted (a token endpoint's `issued` set). */
  tokens?: ReadonlySet<string>;
  /** An express-mode API key accepted on the project-less paths. */
  apiKey?: string;
}

const GEMINI = /^\/v1\/(?:projects\/([^/]+)\/locations\/([^/]+)\/)?publishers\/google\/models\/([^/:]+):streamGenerateContent$/;
const CLAUDE = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):streamRawPredict$/;

/**
 * A mock Vertex AI as a fetch handler, with its recorded requests.
 *
 * @example
 * const vertexApi = mockVertexServer({ project: 'acme-prod', location: 'global', tokens: google.issued, script: [{ text: 'Hi' }] });
 */
export function mockVertexServer(options: MockVertexOptions): MockProviderHandler {
  const gemini = mockProviderServer({ dialect: 'google_gemini', script: options.script });
  const claude = mockProviderServer({ dialect: 'anthropic_messages', script: options.script });
  const requests: RecordedRequest[] = [];
  // google.rpc.Status bodies, as Vertex answers: https://cloud.google.com/apis/design/errors
  const status = (code: number, name: string, message: string) => Response.json({ error: { code, message, status: name } }, { status: code });

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const body = await request.text();
    let parsed: unknown = body;
    try {
      parsed = JSON.parse(body);
    } catch {}
    const record: RecordedRequest = { method: request.method, url: request.url, path: url.pathname + url.search, headers, body: parsed };
    requests.push(record);
    const geminiMatch = GEMINI.exec(url.pathname);
    const claudeMatch = CLAUDE.exec(url.pathname);
    const match = geminiMatch ?? claudeMatch;
    if (request.method !== 'POST' || !match) return status(404, 'NOT_FOUND', `No method at ${url.pathname}`);
    const [, project, location, model] = match;
    record.model = model!;
    const express = project === undefined;
    if (express) {
      if (!options.apiKey || request.headers.get('x-goog-api-key') !== options.apiKey) return status(401, 'UNAUTHENTICATED', 'API keys are not supported by this API. Expected OAuth2 access token or other authentication credentials that assert a principal.');
    } else {
      const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      if (!token || !options.tokens?.has(token)) return status(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
      if (project !== options.project) return status(403, 'PERMISSION_DENIED', `Permission denied on resource project ${project}.`);
      if (location !== options.location) return status(404, 'NOT_FOUND', `Publisher model not found in location ${location}.`);
      const host = location === 'global' ? 'aiplatform.googleapis.com' : `${location}-aiplatform.googleapis.com`;
      if (url.host !== host) return status(400, 'INVALID_ARGUMENT', `The location ${location} is served at ${host}, not ${url.host}.`);
    }
    if (geminiMatch && url.searchParams.get('alt') !== 'sse') return status(400, 'INVALID_ARGUMENT', 'Stream with alt=sse');
    if (claudeMatch && (parsed as { anthropic_version?: unknown })?.anthropic_version !== 'vertex-2023-10-16') {
      return status(400, 'INVALID_ARGUMENT', 'anthropic_version: vertex-2023-10-16 is required');
    }
    const inner = geminiMatch ? gemini : claude;
    const path = geminiMatch ? `/v1beta/models/${model}:streamGenerateContent?alt=sse` : '/v1/messages';
    return inner(new Request(new URL(path, url.origin), { method: 'POST', headers: request.headers, body, signal: request.signal }));
  };
  return Object.assign(handler, {
    requests,
    reset() {
      requests.length = 0;
      gemini.reset();
      claude.reset();
    },
  });
}
