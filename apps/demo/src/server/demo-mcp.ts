/**
 * The demo's MCP tools: `src/mcp/dice-server.ts` started as a child process over
 * stdio on the first run that asks for tools, through `@parlance/mcp`. A tool source,
 * so the engine reads the server's current list before every model call. If the
 * server cannot start, the chat goes on without its tools (and says so once).
 */
import { fileURLToPath } from 'node:url';
import type { AnyTool, ToolSource } from '@parlance/engine';
import { mcpTools, type McpToolSet, type McpToolsOptions } from '@parlance/mcp';
import { stdioServer } from '@parlance/mcp/stdio';

const SERVER = fileURLToPath(new URL('../mcp/dice-server.ts', import.meta.url));
const DEMO_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface DemoMcp extends ToolSource {
  close(): Promise<void>;
}

/** `options` go to `mcpTools` (the demo runs with none: its dice need no approval). */
export function demoMcpTools(options: McpToolsOptions = {}): DemoMcp {
  let connecting: Promise<McpToolSet | undefined> | undefined;
  const connect = () =>
    (connecting ??= mcpTools(stdioServer({ command: process.execPath, args: ['--import', 'tsx', SERVER], cwd: DEMO_DIR }), {
      clientInfo: { name: 'parlance-demo', version: '0.0.0' },
      timeoutMs: 10_000,
      ...options,
    }).catch((error: unknown) => {
      console.error(`The demo MCP server did not start (its tools are off): ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }));
  return {
    async currentTools(): Promise<readonly AnyTool[]> {
      const set = await connect();
      return set ? set.currentTools() : [];
    },
    async close() {
      const set = await connecting;
      await set?.close();
    },
  };
}
