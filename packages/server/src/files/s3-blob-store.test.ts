// The S3 blob store against a real S3-compatible server (s3rver on 127.0.0.1, every request's SigV4
// signature checked by test/sigv4-verifier.ts in front of it): the shared conformance suite path-style,
// virtual-hosted and under a prefix that needs encoding; then the URL a key can reach, the typed
// errors (a real 403 and 404 from the server, 5xx/429/timeouts/resets from a stub) and bounded reads.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ParlanceError } from '@parlance/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobStoreConformance } from '../../test/blob-store-conformance.ts';
import { type LocalS3, loopbackFetch, S3_CREDENTIALS, startLocalS3 } from '../../test/s3-server.ts';
import { createS3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.ts';
import { s3Location } from './s3-object-url.ts';

let s3: LocalS3;
let n = 0;
beforeAll(async () => {
  s3 = await startLocalS3(['files', 'other']);
});
afterAll(async () => {
  await s3?.close();
});

const store = (options: Partial<S3BlobStoreOptions> = {}) => createS3BlobStore({ endpoint: s3.endpoint, bucket: 'files', credentials: S3_CREDENTIALS, prefix: `t${++n}/`, ...options });
const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return 'no error';
  } catch (error) {
    return ParlanceError.isInstance(error) ? error.code : `not a ParlanceError: ${String(error)}`;
  }
};

blobStoreConformance('S3 (s3rver, path-style, signatures verified)', () => store());
blobStoreConformance('S3 (s3rver, virtual-hosted)', () => store({ endpoint: `http://s3.localhost:${s3.port}`, addressing: 'virtual-hosted', fetch: loopbackFetch(s3.port) }));
blobStoreConformance('S3 (s3rver, a prefix with unicode and URL syntax)', () => store({ prefix: `dossier é ?#%\\+/${++n}/` }));

describe('S3 blob store: requests', () => {
  it('every request was signed and the signature checked out (none refused)', async () => {
    const before = s3.verified.length;
    const files = store({ prefix: 'signed/' });
    await files.put('file_sig', new Uint8Array([1, 2, 3]), { mediaType: 'image/png' });
    await files.get('file_sig');
    await files.delete('file_sig');
    expect(s3.verified.slice(before).map((r) => `${r.method} ${r.target}`)).toEqual(['PUT /files/signed/file_sig', 'GET /files/signed/file_sig', 'DELETE /files/signed/file_sig']);
    expect(s3.refused).toEqual([]);
  });

  it('virtual-hosted: the bucket is in the signed Host, not in the path', async () => {
    const before = s3.verified.length;
    const files = store({ endpoint: `http://s3.localhost:${s3.port}`, addressing: 'virtual-hosted', fetch: loopbackFetch(s3.port), prefix: 'vh/' });
    await files.put('file_vh', new Uint8Array([4]), { mediaType: 'image/png' });
    const put = s3.verified[before]!;
    expect([put.headers.host, put.target]).toEqual([`files.s3.localhost:${s3.port}`, '/vh/file_vh']);
    expect(put.headers.authorization).toMatch(/SignedHeaders=host;/);
    expect(await store({ prefix: 'vh/' }).get('file_vh')).toEqual(new Uint8Array([4])); // the same object, path-style
  });

  it('a prefix that needs encoding is stored under its decoded name', async () => {
    const before = s3.verified.length;
    await store({ prefix: 'dé ?#/' }).put('file_enc', new Uint8Array([5]), { mediaType: 'image/png' });
    expect(s3.verified[before]!.target).toBe('/files/d%C3%A9%20%3F%23/file_enc');
    expect(await store({ prefix: 'dé ?#/' }).get('file_enc')).toEqual(new Uint8Array([5]));
    expect(await store({ prefix: 'dé ' }).get('file_enc')).toBeUndefined();
  });

  it('uploads with the signed SHA-256 of the body and the media type', async () => {
    const before = s3.verified.length;
    await store({ prefix: 'hash/' }).put('file_h', new TextEncoder().encode('Welcome to Amazon S3.'), { mediaType: 'text/plain' });
    const put = s3.verified[before]!;
    expect(put.headers['x-amz-content-sha256']).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    expect(put.headers['content-type']).toBe('text/plain');
    expect(put.headers.authorization).toMatch(/SignedHeaders=[^,]*x-amz-content-sha256/);
  });

  it('a wrong secret: the server refuses the signature, a typed authentication error', async () => {
    const files = store({ credentials: { accessKeyId: S3_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret' } });
    expect(await codeOf(files.put('file_x', new Uint8Array([1]), { mediaType: 'image/png' }))).toBe('authentication');
    expect(await codeOf(files.get('file_x'))).toBe('authentication');
    expect(s3.refused.splice(0)).toEqual(['SignatureDoesNotMatch', 'SignatureDoesNotMatch']);
  });

  it('a bucket that does not exist is not_found (a missing object is undefined)', async () => {
    const files = store({ bucket: 'no-such-bucket' });
    expect(await codeOf(files.get('file_x'))).toBe('not_found');
    expect(await codeOf(files.put('file_x', new Uint8Array([1]), { mediaType: 'image/png' }))).toBe('not_found');
  });

  it('buckets stay apart', async () => {
    await store({ prefix: 'same/' }).put('file_b1', new Uint8Array([7]), { mediaType: 'image/png' });
    expect(await store({ prefix: 'same/', bucket: 'other' }).get('file_b1')).toBeUndefined();
  });

  it('reads at most maxFileBytes: a larger object is refused, not read', async () => {
    await store({ prefix: 'big/' }).put('file_big', new Uint8Array(1000), { mediaType: 'image/png' });
    expect(await codeOf(store({ prefix: 'big/', maxFileBytes: 999 }).get('file_big'))).toBe('invalid_response');
    expect(await store({ prefix: 'big/', maxFileBytes: 1000 }).get('file_big')).toHaveLength(1000);
  });
});

describe('S3 blob store: presigned URLs', () => {
  it('gives none unless presignedUrlSeconds is set', () => {
    expect(store().url).toBeUndefined();
  });

  it('a presigned URL reads the file with no other credential; the server checks its signature', async () => {
    const files = store({ prefix: 'pre/', presignedUrlSeconds: 300 });
    await files.put('file_pre', new Uint8Array([1, 2, 3]), { mediaType: 'image/png' });
    const href = (await files.url!('file_pre', { mediaType: 'image/png' }))!;
    const url = new URL(href);
    expect(`${url.origin}${url.pathname}`).toBe(`${s3.endpoint}/files/pre/file_pre`);
    expect([url.searchParams.get('X-Amz-Expires'), url.searchParams.get('X-Amz-SignedHeaders')]).toEqual(['300', 'host']);
    const response = await fetch(href);
    expect([response.status, new Uint8Array(await response.arrayBuffer())]).toEqual([200, new Uint8Array([1, 2, 3])]);
    // The same URL for another file, or stretched in time, is refused.
    const other = href.replace('file_pre', 'file_prf');
    expect((await fetch(other)).status).toBe(403);
    expect((await fetch(href.replace('X-Amz-Expires=300', 'X-Amz-Expires=3000'))).status).toBe(403);
    expect(s3.refused.splice(0)).toEqual(['SignatureDoesNotMatch', 'SignatureDoesNotMatch']);
  });

  it.each([0, -1, 1.5, 604_801, Number.NaN])('refuses presignedUrlSeconds %s when built', (seconds) => {
    expect(() => store({ presignedUrlSeconds: seconds })).toThrow(expect.objectContaining({ code: 'server_error' }));
  });
});

describe('S3 blob store: no key leaves the bucket or the prefix', () => {
  const attempts = ['../x', '..', '.', '%2e%2e', '%2e%2e%2fother', '..%2f..%2fother', 'a/../../other', 'a?acl', 'a#b', 'a%23b', 'é', 'file_\u0000', 'a\\b', 'a b', '', 'x'.repeat(129), 'x'.repeat(100_000)];
  it.each(attempts.map((key) => [JSON.stringify(key).slice(0, 40), key]))('the id %s is refused as invalid_request before any request', async (_, key) => {
    let calls = 0;
    const files = store({
      fetch: async () => {
        calls += 1;
        return new Response(null, { status: 500 });
      },
    });
    expect(await codeOf(files.put(key, new Uint8Array([1]), { mediaType: 'image/png' }))).toBe('invalid_request');
    expect(await codeOf(files.get(key))).toBe('invalid_request');
    expect(await codeOf(files.delete(key))).toBe('invalid_request');
    expect(calls).toBe(0);
  });

  it.each([
    ['path', 'http://127.0.0.1:9000', 'parlance/files/', 'http://127.0.0.1:9000/files/parlance/files/file_1'],
    ['virtual-hosted', 'https://s3.eu-west-1.amazonaws.com', 'p/', 'https://files.s3.eu-west-1.amazonaws.com/p/file_1'],
    ['path', 'https://acc.r2.cloudflarestorage.com', '', 'https://acc.r2.cloudflarestorage.com/files/file_1'],
    ['path', 'http://127.0.0.1:9000', 'a b/é?#%/', 'http://127.0.0.1:9000/files/a%20b/%C3%A9%3F%23%25/file_1'],
    ['path', 'http://127.0.0.1:9000', '%2e%2e/', 'http://127.0.0.1:9000/files/%252e%252e/file_1'],
    ['path', 'http://127.0.0.1:9000', "x\\y!'()*/", 'http://127.0.0.1:9000/files/x%5Cy%21%27%28%29%2A/file_1'],
  ] as const)('%s %s + prefix %j: %s', (addressing, endpoint, prefix, href) => {
    expect(s3Location({ endpoint, bucket: 'files', prefix, addressing }).objectUrl('file_1').href).toBe(href);
  });

  it.each([
    ['a prefix with ..', { prefix: '../' }],
    ['a prefix with a .. segment inside', { prefix: 'a/../b/' }],
    ['a prefix with a . segment', { prefix: './' }],
    ['an absolute prefix', { prefix: '/abs/' }],
    ['a prefix with //', { prefix: 'a//b/' }],
    ['a prefix with a control character', { prefix: 'a\nb/' }],
    ['a prefix over 512 bytes', { prefix: `${'é'.repeat(300)}/` }],
    ['an upper-case bucket', { bucket: 'Files' }],
    ['a bucket with a slash', { bucket: 'a/b' }],
    ['a bucket ..', { bucket: '..' }],
    ['a bucket like an address', { bucket: '192.168.0.1' }],
    ['a bucket with ..', { bucket: 'a..b' }],
    ['a one-letter bucket', { bucket: 'a' }],
    ['an endpoint with a path', { endpoint: 'https://s3.amazonaws.com/bucket' }],
    ['an endpoint with a query', { endpoint: 'https://s3.amazonaws.com/?x=1' }],
    ['an endpoint with credentials', { endpoint: 'https://key:secret@s3.amazonaws.com' }],
    ['an endpoint not http(s)', { endpoint: 'file:///etc/' }],
    ['an endpoint not a URL', { endpoint: 's3.amazonaws.com' }],
    ['a dotted bucket virtual-hosted over https', { bucket: 'a.b', addressing: 'virtual-hosted' as const, endpoint: 'https://s3.amazonaws.com' }],
    ['an empty secret', { credentials: { accessKeyId: 'k', secretAccessKey: '' } }],
  ])('refuses %s when built (server_error)', (_, change) => {
    expect(() => createS3BlobStore({ endpoint: 'http://127.0.0.1:9000', bucket: 'files', credentials: S3_CREDENTIALS, ...change })).toThrow(expect.objectContaining({ code: 'server_error' }));
  });
});

describe('S3 blob store: upstream failures are typed', () => {
  let stub: Server;
  let endpoint = '';
  let answer: (response: ServerResponse) => void = (response) => response.end();
  beforeAll(async () => {
    stub = createServer((request, response) => {
      request.resume();
      answer(response);
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    stub.closeAllConnections();
    await new Promise((resolve) => stub.close(resolve));
  });

  const xml = (status: number, code: string) => (response: ServerResponse) => response.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?><Error><Code>${code}</Code><Message>m</Message></Error>`);
  it.each([
    [403, 'AccessDenied', 'permission'],
    [403, 'InvalidAccessKeyId', 'authentication'],
    [403, 'RequestTimeTooSkewed', 'authentication'],
    [404, 'NoSuchBucket', 'not_found'],
    [429, 'TooManyRequests', 'rate_limited'],
    [503, 'SlowDown', 'rate_limited'],
    [500, 'InternalError', 'store_unavailable'],
    [502, 'BadGateway', 'store_unavailable'],
    [503, 'ServiceUnavailable', 'store_unavailable'],
    [400, 'InvalidArgument', 'invalid_response'],
  ])('%i %s -> %s (put and get)', async (status, code, expected) => {
    answer = xml(status, code);
    const files = createS3BlobStore({ endpoint, bucket: 'files', credentials: S3_CREDENTIALS });
    expect(await codeOf(files.put('file_1', new Uint8Array([1]), { mediaType: 'image/png' }))).toBe(expected);
    expect(await codeOf(files.get('file_1'))).toBe(expected);
  });

  it('a 404 NoSuchKey is undefined on get and fine on delete', async () => {
    answer = xml(404, 'NoSuchKey');
    const files = createS3BlobStore({ endpoint, bucket: 'files', credentials: S3_CREDENTIALS });
    expect(await files.get('file_1')).toBeUndefined();
    await files.delete('file_1');
  });

  it('an answer that never comes is a timeout, retryable', async () => {
    answer = () => {}; // never answers
    const files = createS3BlobStore({ endpoint, bucket: 'files', credentials: S3_CREDENTIALS, timeoutMs: 100 });
    const error = await files.get('file_1').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
  });

  it('a body that stops half-way is a timeout', async () => {
    answer = (response) => response.writeHead(200, { 'content-length': '10' }).write(new Uint8Array(5));
    const files = createS3BlobStore({ endpoint, bucket: 'files', credentials: S3_CREDENTIALS, timeoutMs: 100 });
    expect(await codeOf(files.get('file_1'))).toBe('timeout');
  });

  it('a connection cut is network, retryable', async () => {
    answer = (response) => response.socket?.destroy();
    const files = createS3BlobStore({ endpoint, bucket: 'files', credentials: S3_CREDENTIALS });
    expect(await files.get('file_1').catch((e: unknown) => e)).toMatchObject({ code: 'network', retryable: true });
  });

  it('a streamed body without content-length is cut at maxFileBytes', async () => {
    let closed = false;
    answer = (response) => {
      response.on('close', () => {
        closed = true;
      });
      response.writeHead(200); // chunked: no declared length
      response.write(new Uint8Array(600));
      response.write(new Uint8Array(600));
    };
    const files = createS3BlobStore({ endpoint, bucket: 'files', credentials: S3_CREDENTIALS, maxFileBytes: 1000 });
    expect(await codeOf(files.get('file_1'))).toBe('invalid_response');
    await expect.poll(() => closed).toBe(true);
  });

  it('error messages name the bucket and key, never the secret', async () => {
    answer = xml(403, 'AccessDenied');
    const files = createS3BlobStore({ endpoint, bucket: 'files', credentials: { accessKeyId: 'AKIDSHOWN', secretAccessKey: 'very-secret-value' } });
    const error = (await files.get('file_1').catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('S3 GET files/parlance/files/file_1 answered 403 AccessDenied');
    expect(error.message).not.toContain('very-secret-value');
  });
});
