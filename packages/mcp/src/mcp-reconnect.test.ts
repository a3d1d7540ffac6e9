// A streamable HTTP server that really stops and starts again on the same port (its listener and
// every connection close, pooled keep-alive sockets included), and connections that break under
// one request: steps that change nothing are sent once more, a tool call never is.
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
