/**
 * An upstream that never ends: an OpenAI Chat Completions stream on 127.0.0.1 that writes text
 * chunks as fast as the connection takes them (it waits for 'drain', as a real server's socket
 * does), for the tests and the bench of backpressure. Counts the bytes it wrote and the streams it
 * saw closed by the client (an aborted upstream call).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EndlessUpstream {
  url: string;
  /** Bytes written to every response so far. */
  written(): number;
  /** The bytes of one text chunk on the wire (each becomes one stored text delta). */
  chunkBytes: number;
  /** Responses the client closed before they ended (every one, as none ends by itself). */
  closed(): number;
  close(): Promise<void>;
}

/** One SSE chunk of `chunkChars` characters of text (https://platform.openai.com/docs/api-reference/chat-streaming). */
function chunk(text: string): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-endless', object: 'chat.completion.chunk', created: 0, model: 'endless', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
}

export async function serveEndlessUpstream(chunkChars = 64): Promise<EndlessUpstream> {
  let written = 0;
  let closed = 0;
  const line = chunk('x'.repeat(chunkChars));
  // 64 chunks per write: a fast provider's bursts, without one syscall per token.
  const burst = line.repeat(64);
  const server: Server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let open = true;
    response.on('close', () => {
      open = false;
      closed++;
    });
    const pump = () => {
      while (open) {
        written += burst.length;
        if (!response.write(burst)) return void response.once('drain', pump);
      }
    };
    response.write(chunk(''));
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    written: () => written,
    chunkBytes: Buffer.byteLength(line),
    closed: () => closed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
