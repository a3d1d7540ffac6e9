/**
 * `@parlance/mcp/stdio` (Node only): an MCP server started as a child process and
 * spoken to over its stdin/stdout
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#stdio).
 * Kept out of the main entry so edge bundles never see `node:child_process`.
 */
import { StdioClientTransport, getDefaultEnvironment, type StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpConnection } from './mcp-tools.ts';

/**
 * The MCP SDK's description of a child-process server: command, args, env, cwd.
 *
 * @example
 * const params: StdioServerParameters = { command: 'node', args: ['files-server.js'], env: { ROOT: '/srv/files' } };
 * const files = await mcpTools(stdioServer(params));
 */
export type { StdioServerParameters };

/**
 * A connection for `mcpTools()` to a server run as a child process. The child gets
 * only a minimal environment (the SDK's default: PATH, HOME, ...) plus `env`, never
 * this process's secrets. `mcpTools(...).close()` ends the child.
 *
 * @example
 * ```ts
 * import { mcpTools } from '@parlance/mcp';
 * import { stdioServer } from '@parlance/mcp/stdio';
 *
 * const files = await mcpTools(stdioServer({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/docs'] }), {
 *   needsApproval: true,
 * });
 * ```
 */
export function stdioServer(params: StdioServerParameters): McpConnection {
  const env = params.env ? { ...getDefaultEnvironment(), ...params.env } : undefined;
  return { transport: new StdioClientTransport(env ? { ...params, env } : params) };
}
