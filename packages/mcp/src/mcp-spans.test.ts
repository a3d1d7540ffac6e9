// An MCP tool call's execute_tool span carries the MCP semantic conventions' attributes, by the
// names `@opentelemetry/semantic-conventions/incubating` publishes (read here, not copied).
import { InMemorySpanExporter, BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { createEngine } from '@parlance/engine';
import { fakeModel } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { startHttpServer } from '../test/fixtures/http-server.ts';
import { mcpTools } from './mcp-tools.ts';

const PUBLISHED = new Set<string>(Object.entries(semconv).flatMap(([key, value]) => (key.startsWith('ATTR_') && typeof value === 'string' ? [value] : [])));

describe('spans of MCP tool calls', () => {
  it('carry mcp.method.name, mcp.session.id, mcp.protocol.version and the server address, all published names', async () => {
    const server = await startHttpServer();
    const set = await mcpTools({ url: server.url });
    try {
      const exporter = new InMemorySpanExporter();
      const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
      const model = fakeModel({ script: [{ toolCalls: [{ id: 'e', name: 'echo', input: { text: 'hi' } }] }, { text: 'ok' }] });
      await createEngine({ model, tools: [set], telemetry: { tracer } }).chat({ prompt: 'go' });
      const span = exporter.getFinishedSpans().find((s) => s.name === 'execute_tool echo')!;
      const session = (set.client.transport as { sessionId?: string }).sessionId;
      expect(session).toMatch(/^[0-9a-f-]{36}$/);
      expect(span.attributes).toMatchObject({
        [semconv.ATTR_MCP_METHOD_NAME]: 'tools/call',
        [semconv.ATTR_MCP_SESSION_ID]: session,
        [semconv.ATTR_MCP_PROTOCOL_VERSION]: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        [semconv.ATTR_SERVER_ADDRESS]: '127.0.0.1',
        [semconv.ATTR_SERVER_PORT]: Number(new URL(server.url).port),
        [semconv.ATTR_NETWORK_TRANSPORT]: 'tcp',
        [semconv.ATTR_GEN_AI_TOOL_NAME]: 'echo',
      });
      expect(Object.keys(span.attributes).filter((name) => !name.startsWith('parlance.') && !PUBLISHED.has(name))).toEqual([]);
    } finally {
      await set.close();
      await server.close();
    }
  });
});
