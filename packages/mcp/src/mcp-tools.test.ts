// mcpTools against real MCP servers written with the reference SDK: one child process
// over stdio, one streamable HTTP server on 127.0.0.1. Both run the same suite.
import { join } from 'node:path';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createEngine, type AnyTool, type ChatResult, type EngineOptions } from '@parlance/engine';
import { ParlanceError } from '@parlance/protocol';
import { fakeModel, type ScriptedTurn } from '@parlance/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PIXEL } from '../test/fixtures/fixture-server.ts';
import { startHttpServer } from '../test/fixtures/http-server.ts';
import { mcpTools, type McpToolSet, type McpToolsOptions } from './mcp-tools.ts';
import { stdioServer } from './stdio.ts';

interface Connected {
  set: McpToolSet;
  /** What the server saw (cancelled calls). */
  serverLog(): string[];
  close(): Promise<void>;
}

const packageDir = join(import.meta.dirname, '..');

const harnesses: { name: string; connect(options?: McpToolsOptions): Promise<Connected> }[] = [
  {
    name: 'stdio (child process)',
    async connect(options) {
      const connection = stdioServer({
        command: process.execPath,
        args: ['--import', 'tsx', join(packageDir, 'test/fixtures/stdio-server.ts')],
        cwd: packageDir,
        stderr: 'pipe',
      });
      const lines: string[] = [];
      (connection as { transport: StdioClientTransport }).transport.stderr?.on('data', (chunk: Buffer) => lines.push(...String(chunk).split('\n').filter(Boolean)));
      const set = await mcpTools(connection, options);
      return { set, serverLog: () => lines, close: () => set.close() };
    },
  },
  {
    name: 'streamable HTTP (127.0.0.1)',
    async connect(options) {
      const server = await startHttpServer();
      const set = await mcpTools({ url: server.url }, options);
      return {
        set,
        serverLog: () => server.log,
        async close() {
          await set.close().catch(() => {});
          await server.close();
        },
      };
    },
  },
];

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!condition()) throw new Error(`Timed out waiting for ${what}`);
}

function chat(set: McpToolSet | AnyTool[], script: ScriptedTurn[], options: Partial<EngineOptions> & { signal?: AbortSignal } = {}) {
  const model = fakeModel({ script });
  const { signal, ...engineOptions } = options;
  const engine = createEngine({ model, tools: Array.isArray(set) ? set : [set], ...engineOptions });
  return { model, result: engine.chat({ prompt: 'go', ...(signal ? { signal } : {}) }) };
}

/** An onToolError policy that records each error and lets the run go on. */
function collect(errors: unknown[]): EngineOptions['onToolError'] {
  return (error) => {
    errors.push(error);
    return 'continue';
  };
}

function results(result: ChatResult) {
  return result.steps.flatMap((s) => s.toolResults);
}

describe.each(harnesses)('mcpTools over $name', (harness) => {
  let open: Connected | undefined;
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });

  it('lists every page as engine tools (schemas, descriptions, safe names); approval per server and per tool', async () => {
    open = await harness.connect({ needsApproval: true, tools: { echo: { needsApproval: false } } });
    const { set } = open;
    expect(set.tools.map((t) => t.name)).toEqual(['echo', 'add', 'fail', 'slow', 'crash', 'picture', 'unlock', 'files_read_v2']);
    const echo = set.tools[0]!;
    expect(echo.definition).toEqual({
      name: 'echo',
      description: 'Echoes the text back',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });

    const { result } = chat(set, [
      {
        toolCalls: [
          { id: 'e', name: 'echo', input: { text: 'hi' } },
          { id: 'a', name: 'add', input: { a: 2, b: 3 } },
        ],
      },
    ]);
    const done = await result;
    expect(done.haltReason).toBe('approval');
    expect(done.pending).toMatchObject([{ toolCallId: 'a', name: 'add', kind: 'approval' }]);
    expect(results(done)).toMatchObject([{ toolCallId: 'e', output: 'hi' }]);
  }, 30_000);

  it('calls tools: text, structured content, images; an isError result is a typed tool_error and the run goes on', async () => {
    open = await harness.connect();
    const errors: unknown[] = [];
    const { result } = chat(
      open.set,
      [
        {
          toolCalls: [
            { id: 'e', name: 'echo', input: { text: 'hello' } },
            { id: 'a', name: 'add', input: { a: 2, b: 3 } },
            { id: 'p', name: 'picture', input: {} },
            { id: 'f', name: 'fail', input: {} },
            { id: 'r', name: 'files_read_v2', input: { path: '/a' } },
          ],
        },
        { text: 'All done.' },
      ],
      { onToolError: collect(errors) },
    );
    const done = await result;
    expect(done.haltReason).toBe('completed');
    expect(done.steps).toHaveLength(2);
    const [echo, add, picture, fail, read] = results(done);
    expect(echo).toMatchObject({ output: 'hello' });
    expect(echo!.isError).toBeUndefined();
    expect(add).toMatchObject({ output: { sum: 5 } });
    expect(picture).toMatchObject({
      output: {
        type: 'content',
        content: [
          { type: 'text', text: 'A red pixel' },
          { type: 'file', mediaType: 'image/png', data: PIXEL },
        ],
      },
    });
    expect(fail).toMatchObject({ isError: true, output: 'The tool "fail" failed: The disk is full' });
    expect(read).toMatchObject({ output: 'read /a' });
    expect(errors).toHaveLength(1);
    expect(ParlanceError.isInstance(errors[0]) && errors[0].code).toBe('tool_error');
  }, 30_000);

  it('a slow tool times out at its own timeout, and the server is told to cancel', async () => {
    open = await harness.connect({ tools: { slow: { timeoutMs: 300 } } });
    const { result } = chat(open.set, [{ toolCalls: [{ id: 's', name: 'slow', input: { ms: 20_000 } }] }, { text: 'It took too long.' }]);
    const done = await result;
    expect(done.haltReason).toBe('completed');
    expect(results(done)[0]).toMatchObject({ isError: true, output: 'The tool "slow" timed out after 300 ms' });
    const { serverLog } = open;
    await until(() => serverLog().includes('cancelled slow'), 'the server to see the cancellation');
  }, 30_000);

  it('cancelling the run mid-call cancels the MCP request', async () => {
    open = await harness.connect();
    const controller = new AbortController();
    const { result } = chat(open.set, [{ toolCalls: [{ id: 's', name: 'slow', input: { ms: 20_000 } }] }], {
      signal: controller.signal,
      beforeToolCall: () => void setTimeout(() => controller.abort(), 100),
    });
    const done = await result;
    expect(done.haltReason).toBe('cancelled');
    const { serverLog } = open;
    await until(() => serverLog().includes('cancelled slow'), 'the server to see the cancellation');
  }, 30_000);

  it('the server dying mid-call is a typed network error, and the run goes on', async () => {
    open = await harness.connect();
    const errors: unknown[] = [];
    const { result } = chat(
      open.set,
      [
        { toolCalls: [{ id: 'c', name: 'crash', input: {} }] },
        { toolCalls: [{ id: 'e', name: 'echo', input: { text: 'still there?' } }] },
        { text: 'The server is gone.' },
      ],
      { onToolError: collect(errors) },
    );
    const done = await result;
    expect(done.haltReason).toBe('completed');
    expect(done.steps).toHaveLength(3);
    const [crash, echo] = results(done);
    expect(crash).toMatchObject({ isError: true });
    // stdio: the child's exit closes the transport; HTTP: the broken stream or the refused request.
    // Over HTTP the call is not sent again (it may have run), and the message says so.
    expect(String(crash!.output)).toMatch(
      /^The tool "crash" failed: The (connection to the MCP server was lost|MCP server closed the connection|connection to the MCP server broke during the call to "crash": it may or may not have run)/,
    );
    expect(echo).toMatchObject({ isError: true });
    expect(errors.map((e) => ParlanceError.isInstance(e) && e.code)).toEqual(['network', 'network']);
  }, 30_000);

  it('a tool list that changes during a run is offered from the next round on', async () => {
    const changes: string[][] = [];
    open = await harness.connect({ onToolsChanged: (tools) => changes.push(tools.map((t) => t.name)) });
    const { model, result } = chat(open.set, [
      { toolCalls: [{ id: 'u', name: 'unlock', input: {} }] },
      { toolCalls: [{ id: 's', name: 'secret', input: {} }] },
      { text: 'It is 42.' },
    ]);
    const done = await result;
    expect(done.haltReason).toBe('completed');
    expect(model.requests[0]!.tools?.map((t) => t.name)).not.toContain('secret');
    expect(model.requests[1]!.tools?.map((t) => t.name)).toContain('secret');
    expect(results(done).map((r) => r.output)).toEqual(['unlocked', 'The secret is 42']);
    expect(changes.at(-1)).toContain('secret');
  }, 30_000);
});

describe('mcpTools over streamable HTTP', () => {
  it('close() ends the session on the server (DELETE)', async () => {
    const server = await startHttpServer();
    try {
      const set = await mcpTools({ url: server.url });
      await set.close();
      await until(() => server.log.includes('session closed'), 'the server to close the session');
    } finally {
      await server.close();
    }
  });

  it('a server restarted mid-session (404 "Session not found") gets a new session, and the call goes through once more', async () => {
    const server = await startHttpServer();
    const set = await mcpTools({ url: server.url });
    try {
      const before = await chat(set, [{ toolCalls: [{ id: 'a', name: 'echo', input: { text: 'before' } }] }, { text: 'ok' }]).result;
      expect(results(before)[0]).toMatchObject({ output: 'before' });
      const oldClient = set.client;
      await server.restart();
      const errors: unknown[] = [];
      const after = await chat(set, [{ toolCalls: [{ id: 'b', name: 'echo', input: { text: 'after' } }] }, { text: 'ok' }], { onToolError: collect(errors) }).result;
      expect(errors).toEqual([]);
      expect(results(after)[0]).toMatchObject({ output: 'after' });
      // The old session id met a 404, then a new session was initialized (no session id) on the restarted server.
      const since = server.log.slice(server.log.indexOf('restarted') + 1);
      expect(since[0]).toMatch(/^unknown session (POST|GET)$/);
      expect(since).toContain('session opened');
      const unknownBefore = server.log.filter((line) => line.startsWith('unknown session')).length;
      expect(set.client).not.toBe(oldClient);
      // The new session is the one in use: lists and calls go on without another 404.
      await set.refresh();
      const again = await chat(set, [{ toolCalls: [{ id: 'c', name: 'echo', input: { text: 'again' } }] }, { text: 'ok' }]).result;
      expect(results(again)[0]).toMatchObject({ output: 'again' });
      expect(server.log.filter((line) => line.startsWith('unknown session'))).toHaveLength(unknownBefore);
      expect(server.log.filter((line) => line === 'session opened')).toHaveLength(2);
    } finally {
      await set.close().catch(() => {});
      await server.close();
    }
  }, 30_000);

  it('a server that cannot be reached is a typed network error', async () => {
    const server = await startHttpServer();
    await server.close();
    await expect(mcpTools({ url: server.url })).rejects.toMatchObject({ code: 'network' });
  });
});
