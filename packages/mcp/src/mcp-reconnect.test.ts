// A streamable HTTP server that really stops and starts again on the same port (its listener and
// every connection close, pooled keep-alive sockets included), and connections that break under
// one request: steps that change nothing are sent once more, a tool call never is.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createEngine, type ChatResult, type EngineOptions } from '@parlance/engine';
import { ParlanceError } from '@parlance/protocol';
import { fakeModel, type ScriptedTurn } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { startHttpServer } from '../test/fixtures/http-server.ts';
import { isConnectionError } from './connection-errors.ts';
import { mcpTools, type McpToolSet } from './mcp-tools.ts';

async function run(set: McpToolSet, script: ScriptedTurn[]): Promise<{ result: ChatResult; errors: unknown[] }> {
  const errors: unknown[] = [];
  const onToolError: EngineOptions['onToolError'] = (error) => {
    errors.push(error);
    return 'continue';
  };
  const result = await createEngine({ model: fakeModel({ script }), tools: [set], onToolError }).chat({ prompt: 'go' });
  return { result, errors };
}

const echo = (id: string, text: string): ScriptedTurn[] => [{ toolCalls: [{ id, name: 'echo', input: { text } }] }, { text: 'ok' }];
const outputs = (result: ChatResult) => result.steps.flatMap((s) => s.toolResults).map((r) => r.output);

/** The JSON-RPC method of a fetch to the MCP endpoint (undefined for GET/DELETE). */
function methodOf(init: RequestInit | undefined): string | undefined {
  if (typeof init?.body !== 'string') return undefined;
  return (JSON.parse(init.body) as { method?: string }).method;
}

/** What Node's fetch throws when a pooled socket turns out closed. */
const socketClosed = () => new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });

describe('a server that closes and reopens on the same port', () => {
  it('costs no call: the next call checks the session first (a ping, once more after a dead socket; a new session after the 404) and goes out on it', async () => {
    const server = await startHttpServer();
    const set = await mcpTools({ url: server.url });
    try {
      expect(outputs((await run(set, echo('a', 'before'))).result)).toEqual(['before']);
      for (const round of ['after', 'again']) {
        await server.reopen();
        const { result, errors } = await run(set, echo('b', round));
        expect(errors).toEqual([]);
        expect(outputs(result)).toEqual([round]);
      }
      // A list after a reopen works too (a dead socket or a 404 under tools/list is recovered the same way).
      await server.reopen();
      expect((await set.refresh()).map((t) => t.name)).toContain('echo');
      expect(server.log.filter((line) => line === 'session opened')).toHaveLength(4);
    } finally {
      await set.close().catch(() => {});
      await server.close();
    }
  }, 30_000);
});

/** The fixture server as a process of its own on `port` (0: a free one), and its URL. */
async function startProcess(port: number): Promise<{ url: string; child: ChildProcess }> {
  const packageDir = join(import.meta.dirname, '..');
  const child = spawn(process.execPath, ['--import', 'tsx', join(packageDir, 'test/fixtures/http-server-process.ts'), String(port)], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += String(chunk);
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`The server process exited (${code}) before it listened`)));
  });
  return { url, child };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

describe('a server process killed and started again on the same port', () => {
  // Regression coverage with a real process: the restart takes long enough that the client sees the old sockets
  // close before the next call (the in-process reopen above is the case that used to fail).
  it('costs no call', async () => {
    let server = await startProcess(0);
    const port = Number(new URL(server.url).port);
    const set = await mcpTools({ url: server.url });
    try {
      expect(outputs((await run(set, echo('a', 'before'))).result)).toEqual(['before']);
      await kill(server.child);
      server = await startProcess(port);
      const { result, errors } = await run(set, echo('b', 'after'));
      expect(errors).toEqual([]);
      expect(outputs(result)).toEqual(['after']);
    } finally {
      await set.close().catch(() => {});
      await kill(server.child);
    }
  }, 30_000);
});

describe('a connection that breaks under one request', () => {
  it('initialize and tools/list are sent once more', async () => {
    const server = await startHttpServer();
    const sent: string[] = [];
    const broken = new Set(['initialize', 'tools/list']);
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const method = methodOf(init);
      if (method) sent.push(method);
      if (method && broken.delete(method)) throw socketClosed();
      return globalThis.fetch(input, init);
    };
    const set = await mcpTools({ url: server.url, fetch });
    try {
      expect(set.tools.map((t) => t.name)).toContain('echo');
      expect(sent.filter((m) => m === 'initialize')).toHaveLength(2);
      expect(sent.filter((m) => m === 'tools/list').length).toBeGreaterThan(3); // one page twice, then the others
    } finally {
      await set.close().catch(() => {});
      await server.close();
    }
  }, 30_000);

  it('a tools/call is not sent again: the call ran, its answer was lost, the model gets a network error saying it may have run', async () => {
    const server = await startHttpServer();
    let calls = 0;
    let breakNext = true;
    const fetch: typeof globalThis.fetch = async (input, init) => {
      if (methodOf(init) !== 'tools/call') return globalThis.fetch(input, init);
      calls++;
      const response = await globalThis.fetch(input, init);
      await response.text(); // the server ran the tool and answered; the answer never arrives
      if (breakNext) {
        breakNext = false;
        throw socketClosed();
      }
      return globalThis.fetch(input, init);
    };
    const set = await mcpTools({ url: server.url, fetch });
    try {
      const { errors } = await run(set, echo('a', 'once'));
      expect(calls).toBe(1);
      expect(errors).toHaveLength(1);
      expect(ParlanceError.isInstance(errors[0]) && [errors[0].code, errors[0].message]).toEqual([
        'network',
        'The connection to the MCP server broke during the call to "echo": it may or may not have run, and it was not sent again',
      ]);
    } finally {
      await set.close().catch(() => {});
      await server.close();
    }
  }, 30_000);

  it('a server that stays down: the call is not made, and says so', async () => {
    const server = await startHttpServer();
    const set = await mcpTools({ url: server.url });
    await server.close();
    try {
      const { errors } = await run(set, echo('a', 'x'));
      expect(errors).toHaveLength(1);
      expect(ParlanceError.isInstance(errors[0]) && errors[0].code).toBe('network');
    } finally {
      await set.close().catch(() => {});
    }
  }, 30_000);
});

describe('isConnectionError', () => {
  it.each([
    ['undici: a pooled socket the server closed', socketClosed(), true],
    ['ECONNRESET', new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }), true],
    ['ECONNREFUSED, nested twice', new TypeError('fetch failed', { cause: new AggregateError([], 'x', { cause: { code: 'ECONNREFUSED' } }) }), true],
    ['EPIPE', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), true],
    ['workerd', new TypeError('Network connection lost.'), true],
    ['an abort', new DOMException('aborted', 'AbortError'), false],
    ['a timeout', new DOMException('timed out', 'TimeoutError'), false],
    ['an HTTP answer', new Error('Streamable HTTP error: Error POSTing to endpoint (HTTP 500)'), false],
    ['a tool error', new ParlanceError('tool_error', 'The disk is full'), false],
    ['not an error', 'ECONNRESET', false],
  ])('%s', (_, error, expected) => {
    expect(isConnectionError(error)).toBe(expected);
  });
});
