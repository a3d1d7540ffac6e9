/**
 * A blob store in any S3-compatible bucket (AWS S3, MinIO, Cloudflare R2's S3 API, ...), over
 * `fetch` with requests signed by aws4fetch (SigV4 on WebCrypto: runs on Node, Workers, Deno, Bun).
 * Object API: https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html, API_GetObject,
 * API_DeleteObject; errors: https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html
 */
import { ParlanceError } from '@parlance/protocol';
import { AwsClient } from 'aws4fetch';
import type { BlobStore } from './blob-store.ts';
import { DEFAULT_MAX_FILE_BYTES } from './file-options.ts';
import { type S3Addressing, s3Location } from './s3-object-url.ts';

/**
 * Where and how an S3 blob store keeps files.
 *
 * @example
 * const options: S3BlobStoreOptions = {
 *   endpoint: 'https://s3.eu-west-1.amazonaws.com',
 *   bucket: 'my-app-files',
 *   region: 'eu-west-1',
 *   credentials: { accessKeyId: process.env.S3_KEY_ID!, secretAccessKey: process.env.S3_SECRET! },
 *   addressing: 'virtual-hosted',
 * };
 */
export interface S3BlobStoreOptions {
  /** The service's origin, no path: `https://s3.<region>.amazonaws.com`, `https://<account>.r2.cloudflarestorage.com`, `http://127.0.0.1:9000`. */
  endpoint: string;
  bucket: string;
  /** The signing region (default `us-east-1`; R2 takes `auto`). */
  region?: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Bucket in the path (default, what S3-compatible servers take) or in the host name (AWS's preferred form). */
  addressing?: S3Addressing;
  /** Folder inside the bucket (default `parlance/files/`); checked once and percent-encoded, see `s3-object-url.ts`. */
  prefix?: string;
  /** The largest object `get` reads (default `DEFAULT_MAX_FILE_BYTES`, 20 MiB; set it to `files.maxFileBytes`); a larger one is refused, not read. */
  maxFileBytes?: number;
  /** Each request's limit, answer body included (default 30 s); past it the call fails with `timeout`. */
  timeoutMs?: number;
  /** The `fetch` to use (default the global one). */
  fetch?: typeof fetch;
  /**
   * Hand providers that fetch URLs a presigned GET URL valid this many seconds (1 to 604,800)
   * instead of the bytes (`BlobStore.url`). Off by default: the provider must reach the endpoint,
   * and the URL lets anyone holding it read that one file until it expires.
   */
  presignedUrlSeconds?: number;
}

/** S3 error codes that mean the credentials, not the permissions, are wrong. */
const AUTHENTICATION = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'TokenRefreshRequired', 'RequestTimeTooSkewed', 'AuthorizationHeaderMalformed']);
/** How much of an error answer is read for its `<Code>` (S3 error bodies are a few hundred bytes). */
const MAX_ERROR_BYTES = 16 * 1024;

/**
 * A `BlobStore` in an S3-compatible bucket. Each call is one signed request with no retry (the
 * caller, `POST /files` or the engine, decides); failures are `ParlanceError`s with stable codes:
 * `authentication` (403 bad key or signature), `permission` (other 403), `not_found` (a missing
 * bucket; a missing object is `undefined`), `rate_limited` (429, 503 SlowDown), `store_unavailable`
 * (other 5xx), `timeout`, `network`, `invalid_response` (an object over `maxFileBytes`, any other status).
 * Uploads sign the body's SHA-256 (`x-amz-content-sha256`), so the service refuses bytes changed on the way.
 *
 * @example
 * const store = createS3BlobStore({ endpoint: 'http://127.0.0.1:9000', bucket: 'files', credentials: { accessKeyId: 'minioadmin', secretAccessKey: 'minioadmin' } });
 * createParlanceApp({ models, run: engineRunner(), files: { store } });
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const location = s3Location({ endpoint: options.endpoint, bucket: options.bucket, prefix: options.prefix ?? 'parlance/files/', addressing: options.addressing ?? 'path' });
  const { accessKeyId, secretAccessKey, sessionToken } = options.credentials;
  if (!accessKeyId || !secretAccessKey) throw new ParlanceError('server_error', 'S3 blob store: credentials need an accessKeyId and a secretAccessKey');
  // retries: 0, aws4fetch's own retry loop is not used (`sign` only); one request per call.
  const client = new AwsClient({ accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}), service: 's3', region: options.region ?? 'us-east-1', retries: 0 });
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const doFetch = options.fetch ?? globalThis.fetch;
  const presign = options.presignedUrlSeconds;
  // SigV4 presigned URLs live at most 7 days: https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
  if (presign !== undefined && !(Number.isInteger(presign) && presign >= 1 && presign <= 604_800)) throw new ParlanceError('server_error', `S3 blob store: presignedUrlSeconds must be a whole number from 1 to 604800, not ${presign}`);

  async function send(method: string, key: string, init: RequestInit, read: (response: Response, signal: AbortSignal) => Promise<Uint8Array | undefined>): Promise<Uint8Array | undefined> {
    const url = location.objectUrl(key);
    const what = `S3 ${method} ${location.label}${key}`;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const request = await client.sign(url.href, { ...init, method });
      const response = await doFetch(request, { signal });
      if (response.ok) return await read(response, signal);
      const code = await errorCode(response);
      if (response.status === 404 && (code === 'NoSuchKey' || (method !== 'PUT' && code === undefined))) return undefined;
      throw statusError(what, response.status, code);
    } catch (error) {
      if (ParlanceError.isInstance(error)) throw error;
      if (signal.aborted) throw new ParlanceError('timeout', `${what} took over ${timeoutMs} ms`, { cause: error });
      throw new ParlanceError('network', `${what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  const discard = async (response: Response) => {
    await response.body?.cancel();
    return undefined;
  };

  const store: BlobStore = {
    async put(key, bytes, info) {
      await send(
        'PUT',
        key,
        {
          // The signed payload hash (not UNSIGNED-PAYLOAD): the route already holds the bounded bytes, and S3 checks them against it.
          headers: { 'content-type': info.mediaType, 'x-amz-content-sha256': await sha256Hex(bytes) },
          body: bytes as Uint8Array<ArrayBuffer>,
        },
        discard,
      );
    },
    async get(key) {
      return send('GET', key, {}, (response) => readBounded(response, maxFileBytes, `S3 GET ${location.label}${key}`));
    },
    async delete(key) {
      await send('DELETE', key, {}, discard);
    },
  };
  if (presign !== undefined) {
    store.url = async (key) => {
      const url = location.objectUrl(key);
      url.searchParams.set('X-Amz-Expires', String(presign));
      return (await client.sign(url.href, { method: 'GET', aws: { signQuery: true } })).url;
    };
  }
  return store;
}

/** The upstream status stays in the message, not in `status`: that field is what this server would answer, and a store's 403 is not the caller's. */
function statusError(what: string, status: number, code: string | undefined): ParlanceError {
  const message = `${what} answered ${status}${code ? ` ${code}` : ''}`;
  if (status === 403 || status === 401) return new ParlanceError(code && AUTHENTICATION.has(code) ? 'authentication' : 'permission', message);
  if (status === 404) return new ParlanceError('not_found', message);
  if (status === 429 || (status === 503 && code === 'SlowDown')) return new ParlanceError('rate_limited', message);
  if (status >= 500) return new ParlanceError('store_unavailable', message);
  return new ParlanceError('invalid_response', message);
}

/** The `<Code>` of an S3 XML error answer, reading at most MAX_ERROR_BYTES of it. */
async function errorCode(response: Response): Promise<string | undefined> {
  const headerCode = response.headers.get('x-amz-error-code'); // HEAD-like answers carry it as a header (R2, MinIO)
  let text = '';
  try {
    const bytes = await readBounded(response, MAX_ERROR_BYTES, 'error body', true);
    text = new TextDecoder().decode(bytes);
  } catch {
    // An unreadable error body still gives the status.
  }
  return /<Code>([A-Za-z0-9.]{1,64})<\/Code>/.exec(text)?.[1] ?? headerCode ?? undefined;
}

/**
 * Reads a body of at most `max` bytes: refused before reading when `content-length` says more,
 * and cancelled as soon as more arrives (`truncate`: keep the first `max` bytes instead).
 */
async function readBounded(response: Response, max: number, what: string, truncate = false): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (!truncate && Number.isFinite(declared) && declared > max) {
    await response.body?.cancel();
    throw new ParlanceError('invalid_response', `${what} is ${declared} bytes, over the ${max} bytes a file may have`);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.length > max) {
      await reader.cancel();
      if (!truncate) throw new ParlanceError('invalid_response', `${what} is over the ${max} bytes a file may have`);
      chunks.push(value.subarray(0, max - length));
      length = max;
      break;
    }
    chunks.push(value);
    length += value.length;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}
