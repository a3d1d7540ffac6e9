/**
 * The URL of one object in an S3-compatible bucket, built so that no key can leave the bucket or
 * the store's prefix. Keys are file ids (`checkBlobKey`: `[A-Za-z0-9_-]`, so no `/`, `.`, `%`, `?`
 * or `#`); the prefix comes from configuration and is checked once (no `.` or `..` segment, which
 * the WHATWG URL parser would resolve, also when written `%2e`) and percent-encoded per segment, so
 * `?`, `#`, `%`, `\` and non-ASCII text in it are data, never URL syntax. The built URL is then
 * parsed back and compared with what was meant, as a last check.
 * Addressing: https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html
 */
import { ParlanceError } from '@parlance/protocol';
import { checkBlobKey } from './blob-store.ts';

/**
 * Where objects live: `path` puts the bucket in the path (`https://host/bucket/key`: MinIO, R2,
 * most S3-compatible servers), `virtual-hosted` in the host name (`https://bucket.host/key`: AWS's
 * preferred form; path-style is legacy there).
 *
 * @example
 * const addressing: S3Addressing = 'virtual-hosted';
 */
export type S3Addressing = 'path' | 'virtual-hosted';

/** A checked endpoint, bucket and prefix: `objectUrl(key)` gives one object's URL. */
export interface S3Location {
  /** The URL of the object stored under the file id `key`; refuses any other key (`invalid_request`). */
  objectUrl(key: string): URL;
  /** `bucket/prefix` as written in messages (no credentials, no host). */
  readonly label: string;
}

// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html (R2 and MinIO take the same names).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;
const hasControl = (text: string) => [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
/** S3 keys are at most 1,024 bytes of UTF-8; the file id (<= 128) must fit after the prefix. */
const MAX_PREFIX_BYTES = 512;

function configError(message: string): ParlanceError {
  return new ParlanceError('server_error', `S3 blob store: ${message}`);
}

/** encodeURIComponent leaves `!'()*` alone; S3's canonical form (and safe paths) encode them too. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function checkPrefix(prefix: string): string {
  if (new TextEncoder().encode(prefix).length > MAX_PREFIX_BYTES) throw configError(`the prefix is over ${MAX_PREFIX_BYTES} bytes`);
  if (hasControl(prefix)) throw configError('the prefix holds a control character');
  if (prefix.startsWith('/')) throw configError(`the prefix ${JSON.stringify(prefix)} starts with "/" (write it relative to the bucket)`);
  const segments = prefix.split('/');
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    if (segment === '' && !last) throw configError(`the prefix ${JSON.stringify(prefix)} has an empty segment ("//")`);
    if (segment === '.' || segment === '..') throw configError(`the prefix ${JSON.stringify(prefix)} has a "${segment}" segment`);
  }
  return segments.map(encodeSegment).join('/');
}

/**
 * Checks an endpoint, bucket and prefix once (a `server_error` naming what is wrong) and answers
 * their object URLs.
 *
 * @example
 * const location = s3Location({ endpoint: 'http://127.0.0.1:9000', bucket: 'files', prefix: 'parlance/', addressing: 'path' });
 * location.objectUrl('file_1').href; // 'http://127.0.0.1:9000/files/parlance/file_1'
 */
export function s3Location(options: { endpoint: string; bucket: string; prefix: string; addressing: S3Addressing }): S3Location {
  let endpoint: URL;
  try {
    endpoint = new URL(options.endpoint);
  } catch (cause) {
    throw new ParlanceError('server_error', `S3 blob store: the endpoint ${JSON.stringify(options.endpoint)} is not a URL`, { cause });
  }
  if (endpoint.protocol !== 'https:' && endpoint.protocol !== 'http:') throw configError(`the endpoint must be http(s), not ${endpoint.protocol}`);
  if (endpoint.username || endpoint.password) throw configError('the endpoint holds credentials; pass them as `credentials`');
  if (endpoint.search || endpoint.hash || endpoint.pathname !== '/') throw configError(`the endpoint ${JSON.stringify(options.endpoint)} has a path, query or fragment; name the bucket as \`bucket\` and the folder as \`prefix\``);
  const { bucket, addressing } = options;
  if (!BUCKET.test(bucket) || bucket.includes('..') || IPV4.test(bucket)) throw configError(`${JSON.stringify(bucket)} is not a bucket name (3-63 of a-z, 0-9, ".", "-")`);
  if (addressing === 'virtual-hosted' && bucket.includes('.') && endpoint.protocol === 'https:') {
    // A dotted bucket name as a host label breaks the endpoint's wildcard TLS certificate.
    throw configError(`the bucket ${JSON.stringify(bucket)} has a "." and cannot be virtual-hosted over https; use addressing: 'path'`);
  }
  const prefix = checkPrefix(options.prefix);
  const host = addressing === 'virtual-hosted' ? `${bucket}.${endpoint.host}` : endpoint.host;
  const base = addressing === 'virtual-hosted' ? '/' : `/${bucket}/`;
  const origin = `${endpoint.protocol}//${host}`;
  return {
    label: `${bucket}/${options.prefix}`,
    objectUrl(key) {
      checkBlobKey(key);
      const path = base + prefix + key;
      const url = new URL(path, origin);
      // Nothing above can make the parser move the object elsewhere; if it ever did, refuse rather than send.
      if (url.host !== host || url.pathname !== path || url.search || url.hash) throw new ParlanceError('invalid_request', `The key ${JSON.stringify(key)} does not stay inside ${bucket}/${options.prefix}`);
      return url;
    },
  };
}
