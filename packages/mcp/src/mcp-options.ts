/**
 * The public shapes of `mcpTools()`: where the tools come from, its options, and the set it returns.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { AnyTool, NeedsApproval, ToolSource } from '@parlance/engine';

/**
 * A tool as the MCP server lists it (the SDK's `Tool`), as `filter` sees it.
 *
 * @example
 * ```ts
 * const readOnly = (tool: McpTool) => tool.annotations?.readOnlyHint === true;
 * ```
 */
export type { McpTool };

/**
 * Where the tools come from: a connected SDK `Client`, a streamable HTTP endpoint, or any SDK transport
 * (`stdioServer()` from `@parlance/mcp/stdio` makes one for a child process).
 *
 * @example
 * ```ts
 * await mcpTools({ url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer …' } });
 * await mcpTools(connectedClient); // a Client you connected (and will close) yourself
 * ```
 */
export type McpConnection =
  | Client
  | {
      /** The server's streamable HTTP endpoint (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http). */
      url: string | URL;
      headers?: Record<string, string>;
      fetch?: typeof globalThis.fetch;
    }
  | { transport: Transport };

/**
 * Settings of one of the server's tools, by its name on the server.
 *
 * @example
 * ```ts
 * await mcpTools(connection, { needsApproval: true, tools: { search: { needsApproval: false, timeoutMs: 5_000 } } });
 * ```
 */
export interface McpToolSettings {
  /** Overrides the server-wide `needsApproval`. */
  needsApproval?: NeedsApproval<unknown>;
  /** Per-call timeout in ms (default: the server-wide `timeoutMs`, then the run's `toolTimeoutMs`). */
  timeoutMs?: number;
}

/**
 * Options of `mcpTools()`.
 *
 * @example
 * ```ts
 * await mcpTools(connection, { prefix: 'gh_', filter: (t) => !t.annotations?.destructiveHint, onToolsChanged: (tools) => console.log(tools.length) });
 * ```
 */
export interface McpToolsOptions {
  /** Put before every tool name (`github_`), to keep the tools of several servers apart. */
  prefix?: string;
  /** Whether every call of this server's tools waits for the user's approval (default false). */
  needsApproval?: NeedsApproval<unknown>;
  /** Per-call timeout in ms for this server's tools (default: the run's `toolTimeoutMs`). */
  timeoutMs?: number;
  /** Per-tool settings, by the tool's name on the server. */
  tools?: Record<string, McpToolSettings>;
  /** Which of the server's tools to offer (default: all). */
  filter?: (tool: McpTool) => boolean;
  /** Called with the new list after the server's tool list changed and was read again. */
  onToolsChanged?: (tools: readonly AnyTool[]) => void;
  /** How this client introduces itself in `initialize` (when `mcpTools` creates the client). */
  clientInfo?: { name: string; version: string };
  /** At most this many `tools/list` pages (default 100): a server that pages forever is an error. */
  maxPages?: number;
  /** Told about a tool left out (one that runs only as a task on a server without tasks); default `console.warn`. */
  onWarning?: (message: string) => void;
}

/**
 * A server's tools, kept current. Pass it in `tools` (it is a ToolSource) or spread `tools`.
 *
 * @example
 * ```ts
 * const set = await mcpTools({ url });
 * createEngine({ tools: [set] });       // follows the server's list changes
 * createEngine({ tools: [...set.tools] }); // a snapshot of the list as it is now
 * await set.close();
 * ```
 */
export interface McpToolSet extends ToolSource {
  /** The SDK client (to read resources or prompts of the same server); a new one once a lost session was renewed. */
  readonly client: Client;
  /** The tools as last listed. */
  readonly tools: readonly AnyTool[];
  /** The tools, after any refresh under way. */
  currentTools(): Promise<readonly AnyTool[]>;
  /** Lists the server's tools again. */
  refresh(): Promise<readonly AnyTool[]>;
  /** Closes the connection when `mcpTools` opened it (a client passed in stays open). */
  close(): Promise<void>;
}
