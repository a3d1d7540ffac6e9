// The server on Bun and Deno (both from the npm registry), each with its own HTTP server and its
// defaults: a model silent for 12 s (longer than Bun.serve's 10 s idle limit) streams to the end
// without a cut, because the heartbeat (DEFAULT_HEARTBEAT_MS) writes a ping before any runtime's
// idle limit. With the old 15 s heartbeat Bun closed the response after 10 s
// ("Bun.serve() timed out a request after 10 seconds").
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_HEARTBEAT_MS } from '../src/sse.ts';
import { chatRequest, frames, textOf, userThread } from './helpers.ts';

const SILENT_MS = 12_000;
const bin = (name: string) => join(import.meta.dirname, '../node_modules/.bin', name);
const server = join(import.meta.dirname, '../test-runtimes/server.ts');
const RUNTIMES: Record<string, string[]> = {
  bun: [bin('bun'), 'run', server],
  deno: [bin('deno'), 'run', '--allow-env', '--allow-net=127.0.0.1', '--allow-read', '--no-lock', server],
};

const children: ChildProcess[] = [];
// Each runtime starts in its own process group and the whole group is stopped: `.bin/deno` and
// `.bin/bun` are launchers whose real runtime is a child, which outlived a plain `child.kill()`
// (deno servers were left running after the suite). After all: the cases run concurrently.
afterAll(() => {
  for (const child of children.splice(0)) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** Starts the server on a runtime; resolves with its URL once it prints the port it listens on. */
function start(runtime: string): Promise<string> {
  const [command, ...args] = RUNTIMES[runtime]!;
  const child = spawn(command!, args, { env: { ...process.env, SILENT_MS: String(SILENT_MS), NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const port = /listening (\d+)/.exec(output)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`${runtime} exited (${code}) before listening:\n${output}`)));
  });
}

describe('a stream silent for longer than the strictest idle limit (Bun: 10 s)', () => {
  it('defaults the heartbeat below it', () => {
    expect(DEFAULT_HEARTBEAT_MS).toBeLessThan(10_000);
    expect(SILENT_MS).toBeGreaterThan(10_000);
  });

  it.concurrent.each(Object.keys(RUNTIMES))('streams to the end on %s, with pings through the silence', async (runtime) => {
    const url = await start(runtime);
    const response = await fetch(`${url}/chat`, chatRequest({ messages: userThread.messages, clientRequestId: 'c1' }));
    expect(response.status).toBe(200);
    const all = [];
    for await (const frame of frames(response)) all.push(frame);
    const events = all.filter((f) => f.data).map((f) => f.data);
    expect(textOf(events)).toBe('After the silence.');
    expect(events.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
    expect(all.filter((f) => f.comment === 'ping').length).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
