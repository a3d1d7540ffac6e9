/**
 * Plain request/response endpoints (embeddings, speech, transcription, moderation) over
 * the same transport as the chat models: the key resolved at call time, retries with
 * backoff and `Retry-After`, the first-byte and idle timeouts, abort, secrets redacted
 * from errors. The body is read whole here; a body cut mid-way is the transport's typed
 * error (`network`, `timeout`, `aborted`), never a half-parsed value.
 */
import { ParlanceError } from '@parlance/protocol';
import { getMediaModelInfo } from '../catalog/media-models.ts';
import { redact } from '../transport/redact.ts';
import { createTransport, type OpenedStream } from '../transport/transport.ts';
import { authHeaders, resolveApiKey } from './auth.ts';
import { checkModelId, sealedURL } from './provider-url.ts';
import type { ProviderDefinition, ProviderSettings } from './types.ts';

/** Where a provider lives and how it authenticates: a `ProviderDefinition` or the same fields by hand. */
export type ApiEndpoint = Pick<ProviderDefinition, 'id' | 'baseURL' | 'auth'> & Partial<Pick<ProviderDefinition, 'name' | 'headers' | 'parseError'>>;

export interface ApiCallOptions {
  signal?: AbortSignal | undefined;
  /** Extra headers for this call. */
  headers?: Record<string, string> | undefined;
}

export interface BinaryBody {
  bytes: Uint8Array;
  /** The response's `content-type` (without parameters only when the server sent none). */
  mediaType: string | undefined;
}

export interface ApiClient {
  readonly providerName: string;
  /** POSTs JSON (or a multipart form) and parses the JSON answer. */
  postJson(path: string, body: unknown, options?: ApiCallOptions): Promise<Record<string, unknown>>;
  /** POSTs JSON (or a form) and returns the raw answer (audio). */
  postBinary(path: string, body: unknown, options?: ApiCallOptions): Promise<BinaryBody>;
}

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers) for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

async function readAll(opened: OpenedStream, providerName: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = opened.body.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } catch (error) {
    throw opened.failure() ?? new ParlanceError('network', `The answer of ${providerName} was cut off`, { cause: error });
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** A client for one provider's plain endpoints; `settings` as for its chat models. */
export function createApiClient(endpoint: ApiEndpoint, settings: ProviderSettings = {}): ApiClient {
  const providerName = endpoint.name ?? endpoint.id;
  const transport = settings.transport ?? createTransport(settings);
  const baseURL = (settings.baseURL ?? endpoint.baseURL).replace(/\/+$/, '');

  const send = async (path: string, body: unknown, accept: string, options: ApiCallOptions): Promise<{ bytes: Uint8Array; headers: Headers; secrets: string[] }> => {
    const userHeaders = { ...lowerKeys(endpoint.headers), ...lowerKeys(settings.headers), ...lowerKeys(options.headers) };
    const authHeader = endpoint.auth === 'none' ? undefined : (endpoint.auth.header ?? 'authorization').toLowerCase();
    const key = authHeader && userHeaders[authHeader] === undefined ? await resolveApiKey(endpoint.auth, settings, providerName) : undefined;
    const secrets = key ? [key] : [];
    const form = body instanceof FormData;
    const headers: Record<string, string> = {
      // A form's content-type carries the boundary fetch picks: never set it by hand.
      ...(form ? {} : { 'content-type': 'application/json' }),
      accept,
      ...authHeaders(endpoint.auth, key),
      ...userHeaders,
    };
    const opened = await transport.open({
      url: sealedURL(baseURL, path),
      headers,
      body: form ? body : JSON.stringify(body),
      signal: options.signal,
      providerName,
      parseError: endpoint.parseError,
      secrets,
    });
    if (!opened.ok) throw opened.error;
    return { bytes: await readAll(opened, providerName), headers: opened.headers, secrets };
  };

  return {
    providerName,
    async postJson(path, body, options = {}) {
      const { bytes, secrets } = await send(path, body, 'application/json', options);
      const text = new TextDecoder().decode(bytes);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (cause) {
        throw new ParlanceError('invalid_response', redact(`${providerName} did not answer with JSON: ${text.slice(0, 200)}`, secrets), { cause });
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json)) {
        throw new ParlanceError('invalid_response', `${providerName} answered with JSON that is not an object`);
      }
      return json as Record<string, unknown>;
    },
    async postBinary(path, body, options = {}) {
      const { bytes, headers } = await send(path, body, '*/*', options);
      const type = headers.get('content-type') ?? undefined;
      return { bytes, mediaType: type };
    },
  };
}

/** Asserts an answer's field is an array (a provider changing shape is an `invalid_response`, not a crash). */
export function arrayField(body: Record<string, unknown>, key: string, providerName: string): unknown[] {
  const value = body[key];
  if (!Array.isArray(value)) throw new ParlanceError('invalid_response', `${providerName} answered without "${key}"`);
  return value;
}

/**
 * The client and the identity every non-chat model starts from: its provider's
 * endpoint, and what the media catalog knows about the model (`catalog` names the
 * table when it is not the provider's id).
 */
export function mediaModelBase(endpoint: ApiEndpoint, modelId: string, settings: ProviderSettings, catalog: string = endpoint.id) {
  checkModelId(modelId);
  return { client: createApiClient(endpoint, settings), base: { provider: endpoint.id, modelId, info: getMediaModelInfo(catalog, modelId) } };
}
