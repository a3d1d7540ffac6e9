/**
 * An independent AWS Signature Version 4 check for S3 requests, written from the spec with
 * node:crypto (not aws4fetch, which the store signs with), so the two can be compared:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
 * It recomputes a received request's signature from its method, path, query, signed headers and
 * payload hash, and checks the payload hash against the body. `sigv4-verifier.test.ts` holds it to
 * AWS's published examples; `s3-server.ts` puts it in front of s3rver (which does not check V4).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A request as the server received it: the raw path and query (as sent, percent-encoded), lower-cased header names. */
export interface ReceivedRequest {
  method: string;
  /** The request target as sent, e.g. `/bucket/test%24file.text?max-keys=2`. */
  target: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

export type Verdict = { ok: true; accessKeyId: string } | { ok: false; reason: string };

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** S3's UriEncode: every byte but A-Z a-z 0-9 - . _ ~ as %XX (upper case); `/` kept in paths. */
export function uriEncode(text: string, keepSlash: boolean): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function decode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, '%20'));
}

/** The canonical request of the spec's "Task 1", from what was received. */
export function canonicalRequest(request: ReceivedRequest, signedHeaders: string[], payloadHash: string): string {
  const [rawPath = '/', rawQuery = ''] = request.target.split(/\?(.*)/s, 2);
  // S3 signs the path URI-encoded once: decode what was sent, encode it the spec's way.
  const path = uriEncode(decode(rawPath), true);
  const query = rawQuery
    .split('&')
    .filter((pair) => pair !== '' && !pair.startsWith('X-Amz-Signature='))
    .map((pair) => {
      const [name = '', value = ''] = pair.split(/=(.*)/s, 2);
      return [uriEncode(decode(name), false), uriEncode(decode(value), false)] as const;
    })
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = signedHeaders.map((name) => `${name}:${(request.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  return [request.method, path, query, headers, signedHeaders.join(';'), payloadHash].join('\n');
}

/** The signature the spec gives for `request` with `secretAccessKey` (for the examples and for the check). */
export function expectedSignature(request: ReceivedRequest, secretAccessKey: string, scope: { date: string; region: string; service: string }, amzDate: string, signedHeaders: string[], payloadHash: string): string {
  const credentialScope = `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, credentialScope, sha256(canonicalRequest(request, signedHeaders, payloadHash))].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, scope.date), scope.region), scope.service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** The fields of a presigned URL's query (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html). */
function queryAuth(target: string): { fields: string[]; amzDate: string; expires: number } | undefined {
  const query = new URLSearchParams(target.split('?')[1] ?? '');
  if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return undefined;
  const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(query.get('X-Amz-Credential') ?? '');
  const signature = query.get('X-Amz-Signature') ?? '';
  if (!credential || !/^[0-9a-f]{64}$/.test(signature)) return undefined;
  return { fields: [...credential.slice(1), query.get('X-Amz-SignedHeaders') ?? '', signature], amzDate: query.get('X-Amz-Date') ?? '', expires: Number(query.get('X-Amz-Expires')) };
}

/** `20130524T000000Z` as milliseconds since the epoch. */
const amzTime = (amzDate: string) => Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));

/**
 * Checks a signed request, by its Authorization header or as a presigned URL (query): the
 * credential is a known key, the scope's date is the request's, `host` and every `x-amz-*` header
 * sent are signed, the payload hash is the body's (unless `UNSIGNED-PAYLOAD`; a presigned URL's is),
 * a presigned URL has not expired at `now`, and the signature is the one the secret gives.
 */
export function verifySigV4(request: ReceivedRequest, secrets: ReadonlyMap<string, string>, region: string, now = Date.now()): Verdict {
  const header = AUTHORIZATION.exec(request.headers.authorization ?? '');
  const query = header ? undefined : queryAuth(request.target);
  if (!header && !query) return { ok: false, reason: 'no AWS4-HMAC-SHA256 Authorization header or presigned query' };
  const [accessKeyId = '', date = '', scopeRegion = '', service = '', signedList = '', signature = ''] = header ? header.slice(1) : query!.fields;
  if (query) {
    if (!(query.expires >= 1 && query.expires <= 604_800)) return { ok: false, reason: 'X-Amz-Expires is not 1 to 604800 seconds' };
    if (now > amzTime(query.amzDate) + query.expires * 1000) return { ok: false, reason: 'the presigned URL has expired' };
  }
  const secret = secrets.get(accessKeyId);
  if (secret === undefined) return { ok: false, reason: `unknown access key ${accessKeyId}` };
  if (scopeRegion !== region || service !== 's3') return { ok: false, reason: `scope ${scopeRegion}/${service}, expected ${region}/s3` };
  const amzDate = query ? query.amzDate : (request.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date)) return { ok: false, reason: `x-amz-date ${amzDate} is not the scope's day ${date}` };
  const signedHeaders = signedList.split(';');
  const unsigned = Object.keys(request.headers).filter((name) => (name === 'host' || name.startsWith('x-amz-')) && !signedHeaders.includes(name));
  if (unsigned.length > 0) return { ok: false, reason: `headers sent but not signed: ${unsigned.join(', ')}` };
  const payloadHash = query ? 'UNSIGNED-PAYLOAD' : (request.headers['x-amz-content-sha256'] ?? '');
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(request.body)) return { ok: false, reason: 'x-amz-content-sha256 is not the SHA-256 of the body' };
  const expected = expectedSignature(request, secret, { date, region: scopeRegion, service }, amzDate, signedHeaders, payloadHash);
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) return { ok: false, reason: 'SignatureDoesNotMatch' };
  return { ok: true, accessKeyId };
}
