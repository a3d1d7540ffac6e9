// AWS's published SigV4 examples for S3 (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html,
// "Examples: Signature Calculations"): the independent verifier and aws4fetch (what the S3 store signs with)
// must each give the documented signature for all four, and the verifier must refuse every tampered variant.
import { createHash } from 'node:crypto';
import { AwsV4Signer } from 'aws4fetch';
import { describe, expect, it } from 'vitest';
import { expectedSignature, type ReceivedRequest, uriEncode, verifySigV4 } from './sigv4-verifier.ts';

const accessKeyId = 'AKIAIOSFODNN7EXAMPLE';
const secretAccessKey = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const amzDate = '20130524T000000Z';
const host = 'examplebucket.s3.amazonaws.com';
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const body = new TextEncoder().encode('Welcome to Amazon S3.');

interface Example {
  name: string;
  method: string;
  /** What aws4fetch is given. */
  url: string;
  /** The request target as sent on the wire. */
  target: string;
  headers: Record<string, string>;
  body: Uint8Array;
  signedHeaders: string[];
  signature: string;
}

const examples: Example[] = [
  {
    name: 'GET Object (Range)',
    method: 'GET',
    url: `https://${host}/test.txt`,
    target: '/test.txt',
    headers: { range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY },
    body: new Uint8Array(0),
    signedHeaders: ['host', 'range', 'x-amz-content-sha256', 'x-amz-date'],
    signature: 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
  },
  {
    name: 'PUT Object ($ in the key, signed body)',
    method: 'PUT',
    url: `https://${host}/test$file.text`,
    target: '/test%24file.text',
    headers: { date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY', 'x-amz-content-sha256': '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072' },
    body,
    signedHeaders: ['date', 'host', 'x-amz-content-sha256', 'x-amz-date', 'x-amz-storage-class'],
    signature: '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
  },
  {
    name: 'GET Bucket Lifecycle (empty query value)',
    method: 'GET',
    url: `https://${host}/?lifecycle`,
    target: '/?lifecycle',
    headers: { 'x-amz-content-sha256': EMPTY },
    body: new Uint8Array(0),
    signedHeaders: ['host', 'x-amz-content-sha256', 'x-amz-date'],
    signature: 'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543',
  },
  {
    name: 'GET Bucket (List Objects, sorted query)',
    method: 'GET',
    url: `https://${host}/?max-keys=2&prefix=J`,
    target: '/?max-keys=2&prefix=J',
    headers: { 'x-amz-content-sha256': EMPTY },
    body: new Uint8Array(0),
    signedHeaders: ['host', 'x-amz-content-sha256', 'x-amz-date'],
    signature: '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7',
  },
];

const scope = { date: '20130524', region: 'us-east-1', service: 's3' };
const received = (example: Example): ReceivedRequest => ({
  method: example.method,
  target: example.target,
  headers: { host, 'x-amz-date': amzDate, ...example.headers, authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20130524/us-east-1/s3/aws4_request,SignedHeaders=${example.signedHeaders.join(';')},Signature=${example.signature}` },
  body: example.body,
});
const secrets = new Map([[accessKeyId, secretAccessKey]]);

describe('SigV4: AWS published S3 examples', () => {
  it('the example body hashes to the documented payload hash', () => {
    expect(createHash('sha256').update(body).digest('hex')).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
  });

  it.each(examples)('the verifier computes the documented signature: $name', (example) => {
    const request = received(example);
    expect(expectedSignature(request, secretAccessKey, scope, amzDate, example.signedHeaders, example.headers['x-amz-content-sha256']!)).toBe(example.signature);
    expect(verifySigV4(request, secrets, 'us-east-1')).toEqual({ ok: true, accessKeyId });
  });

  it.each(examples)('aws4fetch signs it with the documented signature: $name', async (example) => {
    const signer = new AwsV4Signer({ url: example.url, method: example.method, headers: example.headers, body: example.method === 'PUT' ? (example.body as Uint8Array<ArrayBuffer>) : null, accessKeyId, secretAccessKey, region: 'us-east-1', service: 's3', datetime: amzDate, allHeaders: true });
    const { headers } = await signer.sign();
    expect(headers.get('authorization')).toBe(`AWS4-HMAC-SHA256 Credential=${accessKeyId}/20130524/us-east-1/s3/aws4_request, SignedHeaders=${example.signedHeaders.join(';')}, Signature=${example.signature}`);
  });

  const put = examples[1]!;
  const tampered: [string, (request: ReceivedRequest) => ReceivedRequest, string][] = [
    ['a changed body byte', (r) => ({ ...r, body: Uint8Array.from(r.body, (b, i) => (i === 0 ? b ^ 1 : b)) }), 'x-amz-content-sha256'],
    ['another key', (r) => ({ ...r, target: '/test%24file.texT' }), 'SignatureDoesNotMatch'],
    ['another bucket (host)', (r) => ({ ...r, headers: { ...r.headers, host: 'otherbucket.s3.amazonaws.com' } }), 'SignatureDoesNotMatch'],
    ['another method', (r) => ({ ...r, method: 'POST' }), 'SignatureDoesNotMatch'],
    ['a query added', (r) => ({ ...r, target: `${r.target}?acl` }), 'SignatureDoesNotMatch'],
    ['a signed header changed', (r) => ({ ...r, headers: { ...r.headers, 'x-amz-storage-class': 'STANDARD' } }), 'SignatureDoesNotMatch'],
    ['an x-amz header added unsigned', (r) => ({ ...r, headers: { ...r.headers, 'x-amz-acl': 'public-read' } }), 'not signed: x-amz-acl'],
    ['another day', (r) => ({ ...r, headers: { ...r.headers, 'x-amz-date': '20130525T000000Z' } }), "scope's day"],
    ['an unknown key id', (r) => ({ ...r, headers: { ...r.headers, authorization: r.headers.authorization!.replace(accessKeyId, 'AKIAOTHER') } }), 'unknown access key'],
  ];
  it.each(tampered)('the verifier refuses %s', (_, change, reason) => {
    const verdict = verifySigV4(change(received(put)), secrets, 'us-east-1');
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.reason).toContain(reason);
  });

  it('the verifier refuses the right request under another secret', () => {
    expect(verifySigV4(received(put), new Map([[accessKeyId, `${secretAccessKey}x`]]), 'us-east-1')).toEqual({ ok: false, reason: 'SignatureDoesNotMatch' });
  });

  // "Authenticating Requests: Using Query Parameters", its GET Object example (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html).
  const presigned = `/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${accessKeyId}%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404`;
  const inTheDay = Date.parse('2013-05-24T12:00:00Z');

  it('aws4fetch presigns the documented URL', async () => {
    const signer = new AwsV4Signer({ url: `https://${host}/test.txt?X-Amz-Expires=86400`, method: 'GET', accessKeyId, secretAccessKey, region: 'us-east-1', service: 's3', datetime: amzDate, signQuery: true });
    const { url } = await signer.sign();
    expect(url.searchParams.get('X-Amz-Signature')).toBe('aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404');
    expect(verifySigV4({ method: 'GET', target: url.pathname + url.search, headers: { host }, body: new Uint8Array(0) }, secrets, 'us-east-1', inTheDay)).toEqual({ ok: true, accessKeyId });
  });

  it('the verifier takes the documented presigned URL within its day, and refuses it after, tampered or stretched', () => {
    const request = (target: string): ReceivedRequest => ({ method: 'GET', target, headers: { host }, body: new Uint8Array(0) });
    expect(verifySigV4(request(presigned), secrets, 'us-east-1', inTheDay)).toEqual({ ok: true, accessKeyId });
    expect(verifySigV4(request(presigned), secrets, 'us-east-1', Date.parse('2013-05-25T00:00:01Z'))).toEqual({ ok: false, reason: 'the presigned URL has expired' });
    expect(verifySigV4(request(presigned.replace('/test.txt', '/other.txt')), secrets, 'us-east-1', inTheDay)).toEqual({ ok: false, reason: 'SignatureDoesNotMatch' });
    expect(verifySigV4(request(presigned.replace('X-Amz-Expires=86400', 'X-Amz-Expires=90000')), secrets, 'us-east-1', inTheDay)).toEqual({ ok: false, reason: 'SignatureDoesNotMatch' });
    expect(verifySigV4(request(presigned.replace('X-Amz-Expires=86400', 'X-Amz-Expires=604801')), secrets, 'us-east-1', inTheDay).ok).toBe(false);
  });

  it.each([
    ['test$file.text', 'test%24file.text'],
    ["a!b'c(d)e*f", 'a%21b%27c%28d%29e%2Af'],
    ['dé/ü', 'd%C3%A9/%C3%BC'],
    ['a b+c', 'a%20b%2Bc'],
  ])('encodes %j the S3 way as %j', (raw, encoded) => {
    expect(uriEncode(raw, true)).toBe(encoded);
  });
});
