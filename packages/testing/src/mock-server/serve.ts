/**
 * `serveMockProvider`: the mock provider on a real socket, for code that needs a URL
 * (an SDK, a child process, a browser). Node only; `node:http` is loaded when called,
 * so importing `@parlance/testing` stays runtime-neutral.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mockProviderServer, type MockProviderHandler, type MockProviderServerOptions, type RecordedRequest } from './handler.ts';

/**
 * A mock provider listening on 127.0.0.1 (see `serveMockProvider`).
 *
 * @example
 * const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' });
 */
export interface MockProviderServer {
  /** `http://127.0.0.1:<port>`: use it as the provider's base URL. */
  url: string;
  requests: RecordedRequest[];
  handler: MockProviderHandler;
  /** How many responses the client closed before they ended (an aborted upstream fetch). */
  disconnects(): number;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(key, item);
    else if (value !== undefined) headers.set(key, value);
  }
  const method = req.method ?? 'GET';
  const init: RequestInit = { method, headers, signal };
  if (method !== 'GET' && method !== 'HEAD' && chunks.length > 0) init.body = Buffer.concat(chunks);
  return new Request(new URL(req.url ?? '/', origin), init);
}

async function writeResponse(response: Response, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  res.writeHead(response.status, headers);
  // Send the status line and headers now, as a provider does, not with the first (possibly delayed) frame.
  res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    while (!signal.aborted) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The handler stopped the body (the client went away): nothing left to send.
  } finally {
    reader.cancel().catch(() => {});
    res.end();
  }
}

/**
 * `mockProviderServer` on a real HTTP server on 127.0.0.1 (port 0): point a provider's base URL, or an official SDK, at `url`.
 *
 * @example
 * const server = await serveMockProvider({ dialect: 'openai_responses', script: [{ text: 'Hi' }] });
 * process.env.OPENAI_BASE_URL = `${server.url}/v1`;
 * // ... run the code under test, then:
 * await server.close();
 */
export async function serveMockProvider(options: MockProviderServerOptions): Promise<MockProviderServer> {
  // The specifier through a variable: a bundler for another runtime (wrangler's esbuild, for a Worker
  // that imports `mockProviderServer` from this package) then leaves this Node-only import alone
  // instead of warning on every build that node:http is missing. It runs only when called, in Node.
  const http: string = 'node:http';
  const { createServer } = (await import(/* @vite-ignore */ http)) as typeof import('node:http');
  const handler = mockProviderServer(options);
  let origin = '';
  let disconnects = 0;
  const server = createServer((req, res) => {
    const aborter = new AbortController();
    // The client closed the connection before the response ended: stop producing.
    res.on('close', () => {
      if (res.writableFinished) return;
      disconnects++;
      aborter.abort(new DOMException('The client disconnected', 'AbortError'));
    });
    toRequest(req, origin, aborter.signal)
      .then((request) => handler(request))
      .then((response) => writeResponse(response, res, aborter.signal))
      .catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(error instanceof Error ? error.message : String(error));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The mock provider did not get a TCP port');
  origin = `http://127.0.0.1:${address.port}`;
  return {
    url: origin,
    requests: handler.requests,
    handler,
    disconnects: () => disconnects,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
