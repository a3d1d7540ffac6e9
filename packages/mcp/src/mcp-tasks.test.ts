// Tools that run only as tasks (execution.taskSupport: 'required'), against servers written with
// the reference SDK over its in-memory transport: one that offers tasks (the call goes through the
// SDK's task API to its result), one that does not (the tool is left out, with a warning).
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createEngine } from '@parlance/engine';
import { fakeModel } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { mcpTools } from './mcp-tools.ts';

async function linked(server: McpServer | Server) {
  const [client, served] = InMemoryTransport.createLinkedPair();
  await server.connect(served);
  return client;
}

describe('MCP tools that run only as tasks', () => {
  it('are called through the task API: the task is created, polled, and its result is the tool output', async () => {
    const server = new McpServer({ name: 'tasks', version: '1.0.0' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: new InMemoryTaskStore() });
    const created: string[] = [];
    server.experimental.tasks.registerToolTask(
      'render',
      { description: 'Renders a report as a task', inputSchema: { title: z.string() }, execution: { taskSupport: 'required' } },
      {
        async createTask({ title }, { taskStore, taskRequestedTtl }) {
          const task = await taskStore.createTask({ ttl: taskRequestedTtl });
          created.push(task.taskId);
          void (async () => {
            await new Promise((resolve) => setTimeout(resolve, 50));
            await taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `Rendered ${title}` }] });
          })();
          return { task };
        },
        getTask: (_args, { taskId, taskStore }) => taskStore.getTask(taskId),
        getTaskResult: (_args, { taskId, taskStore }) => taskStore.getTaskResult(taskId) as never,
      },
    );
    const warnings: string[] = [];
    const set = await mcpTools({ transport: await linked(server) }, { onWarning: (w) => warnings.push(w) });
    expect(set.tools.map((t) => t.name)).toEqual(['render']);
    const engine = createEngine({ model: fakeModel({ script: [{ toolCalls: [{ id: 'r', name: 'render', input: { title: 'Q3' } }] }, { text: 'Done.' }] }), tools: [set] });
    const result = await engine.chat({ prompt: 'render' });
    expect(result.steps[0]!.toolResults).toMatchObject([{ toolCallId: 'r', output: 'Rendered Q3' }]);
    expect(result.steps[0]!.toolResults[0]!.isError).toBeUndefined();
    expect(created).toHaveLength(1);
    expect(warnings).toEqual([]);
    await set.close();
  });

  it('are left out, with a warning, by a server that does not offer tasks', async () => {
    const server = new Server({ name: 'no-tasks', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: 'render', inputSchema: { type: 'object' as const }, execution: { taskSupport: 'required' as const } },
        { name: 'maybe', inputSchema: { type: 'object' as const }, execution: { taskSupport: 'optional' as const } },
        { name: 'plain', inputSchema: { type: 'object' as const } },
      ],
    }));
    const warnings: string[] = [];
    const set = await mcpTools({ transport: await linked(server) }, { onWarning: (w) => warnings.push(w) });
    expect(set.tools.map((t) => t.name)).toEqual(['maybe', 'plain']);
    expect(warnings).toEqual(['The MCP tool "render" runs only as a task, and the server does not offer tasks for tools/call: it is left out']);
    await set.close();
  });
});
