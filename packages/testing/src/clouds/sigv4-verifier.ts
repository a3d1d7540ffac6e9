/**
 * Checks a request's SigV4 signature the way AWS does: the signature is computed again, here with the
 * AWS SDK's own signer (@smithy/signature-v4), over the headers the request says it signed, and must
 * match; the date must be within 15 minutes of the server's clock; the key id must be the one expected.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * The credentials and scope a verifier accepts.
 *
 * @example
 * const options: SigV4VerifierOptions = { credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }, region: 'us-east-1', service: 'bedrock' };
 */
export interface SigV4VerifierOptions {
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  region: string;
  service: string;
  /** The server's clock (default Date.now). */
  now?: () => number;
}

/**
 * Why a signature was refused (AWS's own wording), or undefined when it is valid.
 *
 * @example
 * const problem = await verifySigV4(request, body, { credentials, region: 'us-east-1', service: 'bedrock' });
 */
export async function verifySigV4(request: Request, body: string, options: SigV4VerifierOptions): Promise<string | undefined> {
  const header = request.headers.get('authorization');
  if (!header) return 'Missing Authentication Token';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(header);
  if (!match) return 'Authorization header requires Credential, SignedHeaders and Signature';
  const [, keyId, , region, service, signedList] = match as unknown as [string, string, string, string, string, string, string];
  if (keyId !== options.credentials.accessKeyId) return 'The security token included in the request is invalid.';
  if (region !== options.region || service !== options.service) return `Credential should be scoped to a valid region and service (${options.region}/${options.service})`;
  const amzDate = request.headers.get('x-amz-date') ?? '';
  const stamp = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!stamp) return 'Missing or invalid X-Amz-Date';
  const signingDate = new Date(Date.UTC(+stamp[1]!, +stamp[2]! - 1, +stamp[3]!, +stamp[4]!, +stamp[5]!, +stamp[6]!));
  if (Math.abs((options.now ?? Date.now)() - signingDate.getTime()) > 15 * 60_000) return 'Signature expired: the request time is more than 15 minutes from the server time';
  const token = request.headers.get('x-amz-security-token');
  if ((options.credentials.sessionToken ?? null) !== token) return 'The security token included in the request is invalid.';

  const signed = signedList.split(';');
  if (!signed.includes('host')) return "'Host' must be a signed header";
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  for (const name of signed) {
    if (name === 'host') headers.host = url.host;
    else if (name !== 'x-amz-date' && name !== 'x-amz-security-token') headers[name] = request.headers.get(name) ?? '';
  }
  const query: Record<string, string> = {};
  url.searchParams.forEach((value, key) => {
    query[key] = value;
  });
  // applyChecksum off: the payload hash is signed only when the request itself sent x-amz-content-sha256 (then it is in SignedHeaders).
  const signer = new SignatureV4({ credentials: options.credentials, region: options.region, service: options.service, sha256: Sha256, applyChecksum: false });
  const expected = await signer.sign(
    { method: request.method, protocol: url.protocol, hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path: url.pathname, query, headers, body },
    { signingDate },
  );
  const wanted = String(expected.headers.authorization ?? expected.headers.Authorization ?? '');
  if (wanted !== header) {
    return 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
  }
  return undefined;
}
