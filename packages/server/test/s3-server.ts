/**
 * A local S3-compatible server for the S3 blob store's tests: s3rver (npm, a fake S3 on the file
 * system) on 127.0.0.1, behind a proxy that checks every request's SigV4 signature with the
 * independent verifier (s3rver itself checks only V2 signatures). A request that fails the check
 * gets S3's own 403 answer (`SignatureDoesNotMatch`, `InvalidAccessKeyId`) and never reaches s3rver.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { verifySigV4 } from './sigv4-verifier.ts';

/** s3rver's built-in account: the only key it takes. */
export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
export const S3_REGION = 'us-east-1';
/** The proxy reads request bodies up to this (the largest file a test stores is far under it). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface LocalS3 {
  /** The verifying proxy's origin (`http://127.0.0.1:<port>`). */
  endpoint: string;
  port: number;
  /** Requests whose signature checked out, and refusals with their reason (the last 1,000 each). */
  verified: { method: string; target: string; headers: Record<string, string> }[];
  refused: string[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request) {
    length += (chunk as Buffer).length;
    if (length > MAX_BODY_BYTES) throw new Error('body over the test proxy bound');
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

const xmlError = (code: string, message: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message.replace(/[<&]/g, ' ')}</Message></Error>`;

/**
 * Starts s3rver (buckets `buckets`, virtual-hosted names under `s3.localhost`) and the verifying proxy.
 *
 * @example
 * const s3 = await startLocalS3(['files']);
 * const store = createS3BlobStore({ endpoint: s3.endpoint, bucket: 'files', credentials: S3_CREDENTIALS });
 */
export async function startLocalS3(buckets: string[]): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 'parlance-s3rver-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, serviceEndpoint: 'localhost', configureBuckets: buckets.map((name) => ({ name })) });
  const upstream = await s3rver.run();
  const secrets = new Map([[S3_CREDENTIALS.accessKeyId, S3_CREDENTIALS.secretAccessKey]]);
  const verified: LocalS3['verified'] = [];
  const refused: string[] = [];
  const proxy = createServer(async (request, response) => {
    try {
      const body = await readBody(request);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
      const received = { method: request.method ?? 'GET', target: request.url ?? '/', headers, body };
      const verdict = verifySigV4(received, secrets, S3_REGION);
      if (!verdict.ok) {
        if (refused.push(verdict.reason) > 1000) refused.shift();
        response.writeHead(403, { 'content-type': 'application/xml' }).end(xmlError(verdict.reason.startsWith('unknown access key') ? 'InvalidAccessKeyId' : 'SignatureDoesNotMatch', verdict.reason));
        return;
      }
      if (verified.push({ method: received.method, target: received.target, headers }) > 1000) verified.shift();
      const forward = httpRequest({ host: '127.0.0.1', port: (upstream as AddressInfo).port, method: received.method, path: received.target, headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      forward.on('error', () => response.destroy());
      forward.end(body);
    } catch {
      response.destroy();
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    verified,
    refused,
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` that sends every request to 127.0.0.1 on `port`, keeping the URL's host in the `Host`
 * header (a resolver mapping every name to this machine): virtual-hosted URLs
 * (`http://bucket.s3.localhost:<port>/key`) reach the local server. Node's `fetch` drops a `Host`
 * header it is given, so this speaks node:http.
 *
 * @example
 * createS3BlobStore({ endpoint: `http://s3.localhost:${s3.port}`, addressing: 'virtual-hosted', fetch: loopbackFetch(s3.port), ... });
 */
export function loopbackFetch(port: number): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port, method: request.method, path: url.pathname + url.search, headers: { ...Object.fromEntries(request.headers), host: url.host }, signal: request.signal },
        (answer) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(',') : value);
          const status = answer.statusCode ?? 502;
          resolve(new Response(NULL_BODY.has(status) ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>), { status, headers }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}
