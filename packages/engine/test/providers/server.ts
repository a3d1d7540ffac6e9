/**
 * A real HTTP server on 127.0.0.1 (node:http, port 0) for provider tests: it records
 * every request (method, URL, headers, JSON body), lets each test answer its own way,
 * and replays recorded streams in realistic, uneven chunks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { loadFixtures, randomCuts, seededRandom, type Fixture } from '../../../dialects/test/conformance.ts';
import type { DialectId } from '@parlance/dialects';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
  raw: string;
  /** The body as received (multipart uploads). */
  bytes: Buffer;
  /** Resolves when the client's connection for this request closed; `finished` says whether the response was complete. */
  closed: Promise<{ finished: boolean }>;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const closed = new Promise<{ finished: boolean }>((resolve) => {
      res.on('close', () => resolve({ finished: res.writableFinished }));
    });
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString('utf8');
      let body: unknown = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, raw, bytes, closed };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res, requests.length - 1)).catch((error) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `startServer` for one test file: every server it starts is closed after its test.
 * Call at the top level of the file.
 */
export function serverPerTest(): (handler: Handler) => Promise<TestServer> {
  let open: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(open.map((server) => server.close()));
    open = [];
  });
  return async (handler) => {
    const server = await startServer(handler);
    open.push(server);
    return server;
  };
}

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

export function contentTypeOf(fixture: Fixture): string {
  return fixture.name.endsWith('.ndjson') ? 'application/x-ndjson' : 'text/event-stream';
}

/** Writes a recorded body in uneven pieces (cut inside lines and multibyte characters), pausing between them. */
export async function replay(res: ServerResponse, fixture: Fixture, options: { seed?: number; pieces?: number } = {}): Promise<void> {
  res.writeHead(200, { 'content-type': contentTypeOf(fixture), 'cache-control': 'no-cache' });
  const random = seededRandom(options.seed ?? fixture.bytes.length);
  for (const piece of randomCuts(fixture.bytes, random, options.pieces ?? 24)) {
    if (res.destroyed) return;
    res.write(piece);
    await pause();
  }
  res.end();
}

/** Writes the first `fraction` of a body, then resets the connection. */
export async function replayThenReset(res: ServerResponse, fixture: Fixture, fraction = 0.5): Promise<void> {
  res.writeHead(200, { 'content-type': contentTypeOf(fixture) });
  const frames = fixture.frames.slice(0, Math.max(1, Math.floor(fixture.frames.length * fraction)));
  for (const frame of frames) {
    res.write(frame);
    await pause();
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  res.socket?.destroy();
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function fixture(dialect: DialectId, name: string): Fixture {
  const found = loadFixtures(dialect).find((f) => f.name === name);
  if (!found) throw new Error(`No fixture ${dialect}/${name}`);
  return found;
}
