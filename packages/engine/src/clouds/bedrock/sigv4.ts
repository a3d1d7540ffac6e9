/**
 * AWS Signature Version 4 for one request, with aws4fetch's signer (Web Crypto only, so it runs on
 * Workers, Deno and browsers as on Node): https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html
 * Credentials come from the settings (fixed, or a function called for every request, so STS
 * sessions and rotation work) or the standard variables (`AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), as the AWS SDKs read them.
 */
import { ParlanceError } from '@parlance/protocol';
import { AwsV4Signer } from 'aws4fetch';

/**
 * An AWS access key pair, with the session token of temporary (STS) credentials.
 *
 * @example
 * const credentials: AwsCredentials = { accessKeyId: 'AKIA...', secretAccessKey: '...', sessionToken: 'IQoJ...' };
 */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

/**
 * Fixed credentials, or a function returning them (called for every request: rotation, STS, an SSO cache).
 *
 * @example
 * const source: AwsCredentialSource = async () => (await sts.send(new AssumeRoleCommand(params))).Credentials!;
 */
export type AwsCredentialSource = AwsCredentials | (() => AwsCredentials | Promise<AwsCredentials>);

/**
 * What to sign with, and for which region and service.
 *
 * @example
 * const options: SigV4Options = { credentials, region: 'us-east-1', service: 'bedrock' };
 */
export interface SigV4Options {
  credentials: AwsCredentials;
  region: string;
  service: string;
  /** `YYYYMMDDTHHMMSSZ` (default: now): tests sign at a fixed time. */
  datetime?: string;
  /** Derived signing keys by secret, date, region and service (see `createSigningKeyCache`). */
  cache?: Map<string, ArrayBuffer>;
}

/** Signing keys are per secret, day, region and service: a handful at most in a process. */
const MAX_CACHED_KEYS = 16;

/**
 * A cache for derived signing keys (four HMACs saved per request), bounded at 16 entries: when full it is emptied.
 *
 * @example
 * const cache = createSigningKeyCache();
 * await signAwsRequest(request, { credentials, region, service: 'bedrock', cache });
 */
export function createSigningKeyCache(): Map<string, ArrayBuffer> {
  const cache = new Map<string, ArrayBuffer>();
  const set = cache.set.bind(cache);
  cache.set = (key, value) => {
    if (cache.size >= MAX_CACHED_KEYS && !cache.has(key)) cache.clear();
    return set(key, value);
  };
  return cache;
}

/** The aws4fetch signer for a request (its canonical request and string to sign are checked in tests). */
export function awsSigner(request: { method: string; url: string; headers: Record<string, string>; body?: string | undefined }, options: SigV4Options): AwsV4Signer {
  return new AwsV4Signer({
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: request.body,
    accessKeyId: options.credentials.accessKeyId,
    secretAccessKey: options.credentials.secretAccessKey,
    sessionToken: options.credentials.sessionToken,
    service: options.service,
    region: options.region,
    // Sign every header given (content-type too, as the AWS SDKs and the test suite do): the caller
    // passes exactly the headers it sends, so none can be changed on the way without failing the signature.
    allHeaders: true,
    ...(options.datetime ? { datetime: options.datetime } : {}),
    ...(options.cache ? { cache: options.cache } : {}),
  });
}

/**
 * The headers that sign a request: `authorization`, `x-amz-date` and, for temporary credentials,
 * `x-amz-security-token`. The request's own headers are signed as given (lower-case names).
 *
 * @example
 * const headers = await signAwsRequest({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body }, { credentials, region: 'us-east-1', service: 'bedrock' });
 */
export async function signAwsRequest(
  request: { method: string; url: string; headers: Record<string, string>; body?: string | undefined },
  options: SigV4Options,
): Promise<Record<string, string>> {
  const signer = awsSigner(request, options);
  const signed = await signer.sign();
  const out: Record<string, string> = {
    authorization: signed.headers.get('authorization')!,
    'x-amz-date': signed.headers.get('x-amz-date')!,
  };
  const token = signed.headers.get('x-amz-security-token');
  if (token) out['x-amz-security-token'] = token;
  return out;
}

/**
 * Credentials from the standard AWS variables, or undefined when the key pair is not set.
 *
 * @example
 * awsCredentialsFromEnv({ AWS_ACCESS_KEY_ID: 'AKIA...', AWS_SECRET_ACCESS_KEY: '...' });
 */
export function awsCredentialsFromEnv(env: Record<string, string | undefined>): AwsCredentials | undefined {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}

/**
 * Credentials from a source (called now), checked: a typed `authentication` error when unusable.
 *
 * @example
 * const credentials = await resolveAwsCredentials(async () => assumeRole(), 'Amazon Bedrock');
 */
export async function resolveAwsCredentials(source: AwsCredentialSource, service: string): Promise<AwsCredentials> {
  let credentials: AwsCredentials;
  try {
    credentials = typeof source === 'function' ? await source() : source;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ParlanceError('authentication', `Could not get AWS credentials for ${service}: ${reason}`, { retryable: false });
  }
  if (!credentials?.accessKeyId || !credentials.secretAccessKey) {
    throw new ParlanceError('authentication', `The AWS credentials for ${service} have no accessKeyId or secretAccessKey`, { retryable: false });
  }
  return credentials;
}
