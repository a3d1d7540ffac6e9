// mcpTools inside workerd (the Workers runtime, no nodejs_compat): the main entry loads and
// runs there. The MCP server is the fixture server on the SDK's Web-standard streamable HTTP
// transport in the same isolate, reached through an injected fetch.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { createEngine } from '@parlance/engine';
import type { Event, LanguageModel } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { mcpTools } from '../src/index.ts';
import { createFixtureServer } from '../test/fixtures/fixture-server.ts';

/** Calls `add` and `fail`, then answers (@parlance/testing's fake model needs Node types). */
function scriptedModel(): LanguageModel {
  const turns: Event[][] = [
    [
      { type: 'message-start' },
      { type: 'tool-call-start', id: 'a', name: 'add' },
      { type: 'tool-call-end', id: 'a', input: { a: 2, b: 3 } },
      { type: 'tool-call-start', id: 'f', name: 'fail' },
      { type: 'tool-call-end', id: 'f', input: {} },
      { type: 'finish', finishReason: 'tool-calls', usage: {} },
    ],
    [{ type: 'message-start' }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Done.' }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: 'stop', usage: {} }],
  ];
  let call = 0;
  return {
    provider: 'script',
    modelId: 'script',
    dialect: 'script',
    async *stream() {
      yield* turns[Math.min(call++, turns.length - 1)]!;
    },
  };
}

async function serve() {
  const log: string[] = [];
  const server = createFixtureServer({ crash: () => {}, log: (line) => log.push(line) });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
  await server.connect(transport);
  const fetch: typeof globalThis.fetch = async (input, init) => transport.handleRequest(new Request(input, init));
  return { fetch, log };
}

describe('mcpTools in workerd', () => {
  it('lists and calls tools over streamable HTTP with a Client using the cfworker validator', async () => {
    const { fetch } = await serve();
    const client = new Client({ name: 'edge', version: '1.0.0' }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), { fetch }));
    const set = await mcpTools(client);
    expect(set.tools.map((t) => t.name)).toContain('files_read_v2');
    const model = scriptedModel();
    const result = await createEngine({ model, tools: [set] }).chat({ prompt: 'go' });
    expect(result.haltReason).toBe('completed');
    expect(result.steps[0]!.toolResults).toMatchObject([
      { name: 'add', output: { sum: 5 } },
      { name: 'fail', isError: true },
    ]);
    await client.close();
  });

  it('mcpTools({ url, fetch }) connects and lists on its own', async () => {
    const { fetch } = await serve();
    const set = await mcpTools({ url: 'http://mcp.test/mcp', fetch });
    expect(set.tools).toHaveLength(8);
    await set.close();
  });
});
