/**
 * `mcpTools()`: a Model Context Protocol server's tools as engine tools, through the
 * reference SDK's `Client` (https://modelcontextprotocol.io/specification/2025-06-18/server/tools).
 *
 * - Lists every page of `tools/list` and lists again on `notifications/tools/list_changed`;
 *   the set is a `ToolSource`, so the engine offers the new list from the next model call on.
 * - Each tool's `inputSchema` is its engine input schema; calls go out with the run's
 *   abort signal (a timeout or a cancel becomes `notifications/cancelled` to the server).
 * - A failure is a typed error result the model sees and the run goes on: `tool_error`
 *   for a result with `isError`, `network` when the connection is lost mid-call, `timeout`.
 *   A lost streamable-HTTP connection is detected by probing with `ping` after a transport
 *   error, because the SDK keeps waiting on a request whose stream broke.
 * - A streamable HTTP server that answers 404 to the session (it restarted, or expired the
 *   session) gets a new session, as the transport spec says a client MUST
 *   (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management),
 *   and the call or list that met the 404 is sent once more on it (a 404 means it was not run).
 * - A broken connection (a server that closed and reopened on the same port leaves dead
 *   keep-alive sockets) is not a lost server: steps that change nothing (`initialize`, `ping`,
 *   `tools/list`) are sent once more; after a transport error the next call first checks the
 *   session with a `ping`, so it goes out on a live connection (and a new session after a
 *   404). A `tools/call` whose connection broke is never sent again: it may have run
 *   (connection-errors.ts).
 * - A tool that runs only as a task (`execution.taskSupport: 'required'`) is called through the
 *   SDK's task API (`callToolStream`: the task is created, polled, and its result read); on a
 *   server that does not offer tasks it is left out with a warning.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { tool, type AnyTool } from '@parlance/engine';
import { ParlanceError, type JSONSchema } from '@parlance/protocol';
import { toToolOutput } from './call-result.ts';
import { isConnectionError, onceMore } from './connection-errors.ts';
import type { McpConnection, McpToolSet, McpToolsOptions } from './mcp-options.ts';
import { engineToolNames } from './tool-names.ts';

export type { McpConnection, McpTool, McpToolSet, McpToolSettings, McpToolsOptions } from './mcp-options.ts';

const DEFAULT_MAX_PAGES = 100;
/** The engine's own timer governs calls; the SDK's (60 s by default) must not fire first. */
const NO_SDK_TIMEOUT = 2_147_483_647;
const PROBE_TIMEOUT_MS = 5_000;

function isClient(value: McpConnection): value is Client {
  return typeof (value as Client).callTool === 'function' && typeof (value as Client).listTools === 'function';
}

function transportOf(connection: Exclude<McpConnection, Client>): Transport {
  if ('transport' in connection) return connection.transport;
  const options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1] = {};
  if (connection.headers) options.requestInit = { headers: connection.headers };
  if (connection.fetch) options.fetch = connection.fetch;
  return new StreamableHTTPClientTransport(new URL(connection.url), options);
}

/** The server no longer knows the session (HTTP 404 to a request that named it). */
function sessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** A call failure as a typed error; an abort (the run's cancel or the engine's timeout) passes through. */
function callError(error: unknown, name: string, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? error;
  if (ParlanceError.isInstance(error)) return error;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) {
      return new ParlanceError('network', `The MCP server closed the connection during the call to "${name}"`, { cause: error });
    }
    if (error.code === ErrorCode.RequestTimeout) return new ParlanceError('timeout', `The MCP call to "${name}" timed out`, { cause: error });
    return new ParlanceError('tool_error', error.message, { cause: error });
  }
  if (isConnectionError(error)) {
    return new ParlanceError('network', `The connection to the MCP server broke during the call to "${name}": it may or may not have run, and it was not sent again`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ParlanceError('network', `The MCP call to "${name}" failed: ${message}`, { cause: error });
}

/**
 * Connects to an MCP server (or takes a connected `Client`) and returns its tools as
 * engine tools that stay current when the server's list changes.
 *
 * @example
 * ```ts
 * import { createEngine } from '@parlance/engine';
 * import { mcpTools } from '@parlance/mcp';
 *
 * const docs = await mcpTools({ url: 'https://mcp.example.com/mcp' }, { prefix: 'docs_', needsApproval: false });
 * const engine = createEngine({ model: 'anthropic:claude-sonnet-4-5', tools: [docs] });
 * const result = await engine.chat({ prompt: 'What does the changelog say about 2.0?' });
 * await docs.close();
 * ```
 */
export async function mcpTools(connection: McpConnection, options: McpToolsOptions = {}): Promise<McpToolSet> {
  let client: Client;
  let owned = false;
  let transport: Transport | undefined;
  const connectOnce = async (): Promise<{ client: Client; transport: Transport }> => {
    const next = new Client(options.clientInfo ?? { name: 'parlance', version: '0.1.0' });
    const opened = transportOf(connection as Exclude<McpConnection, Client>);
    try {
      await next.connect(opened);
    } catch (error) {
      await next.close().catch(() => {});
      throw error;
    }
    return { client: next, transport: opened };
  };
  const connect = async (): Promise<{ client: Client; transport: Transport }> => {
    try {
      // `initialize` changes nothing a second one would not: once more after a broken connection.
      return await onceMore(connectOnce);
    } catch (cause) {
      throw new ParlanceError('network', `Could not connect to the MCP server: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    }
  };
  if (isClient(connection)) {
    client = connection;
    if (!client.transport) throw new ParlanceError('invalid_request', 'Connect the MCP client before passing it to mcpTools()');
  } else {
    owned = true;
    ({ client, transport } = await connect());
  }
  // Only a connection made from a URL can be made again (a transport or a client passed in is the caller's).
  const renewable = owned && !isClient(connection) && 'url' in connection;

  /** Rejecters of calls in flight: a lost connection fails them all. */
  const inFlight = new Set<(error: unknown) => void>();
  let closed = false;
  const failInFlight = (error: ParlanceError) => {
    for (const reject of inFlight) reject(error);
    inFlight.clear();
  };
  const lost = () => new ParlanceError('network', 'The connection to the MCP server was lost');
  const sessionLost = () => new ParlanceError('network', 'The MCP server no longer knows the session (it restarted or expired it): the call may or may not have run');
  let probing = false;
  /** A transport error was seen: the next call checks the session first (a `ping`), so it does not go out on a dead socket. */
  let suspect = false;
  /** `ping`, once more after a broken connection (a dead keep-alive socket fails the first). */
  const ping = (c: Client) => onceMore(() => c.ping({ timeout: PROBE_TIMEOUT_MS }));
  /** Watches one client: events of a client already replaced by a new session are ignored. */
  const watch = (watched: Client) => {
    const previousClose = watched.onclose;
    watched.onclose = () => {
      previousClose?.();
      if (watched !== client) return;
      closed = true;
      failInFlight(lost());
    };
    const previousError = watched.onerror;
    watched.onerror = (error) => {
      previousError?.(error);
      if (watched !== client || closed) return;
      suspect = true;
      if (inFlight.size === 0 || probing) return;
      // A broken stream does not fail the request it carried: ask the server whether it is still there.
      // A server that no longer knows the session will never answer the calls of that session either.
      probing = true;
      ping(watched)
        .catch((error: unknown) => failInFlight(sessionGone(error) ? sessionLost() : lost()))
        .finally(() => {
          probing = false;
        });
    };
  };
  watch(client);

  let renewing: Promise<void> | undefined;
  /** A new session in place of one the server no longer knows (one at a time, shared by the calls that met the 404). */
  const renew = (gone: Client): Promise<void> => {
    if (client !== gone) return Promise.resolve();
    renewing ??= (async () => {
      try {
        const next = await connect();
        client = next.client;
        transport = next.transport;
        closed = false;
        watch(client);
        listenForChanges(client);
        void gone.close().catch(() => {});
      } finally {
        renewing = undefined;
      }
    })();
    return renewing;
  };
  /** Runs `request` on the current session; after a 404 to the session, once more on a new one. */
  const onSession = async <T>(request: (c: Client) => Promise<T>, signal?: AbortSignal): Promise<T> => {
    const used = client;
    try {
      return await request(used);
    } catch (error) {
      if (!renewable || !sessionGone(error) || signal?.aborted) throw error;
      await renew(used);
      return request(client);
    }
  };

  /** A tool the server runs as a task only: called through the SDK's task API, which creates the task and polls it to its result. */
  const callAsTask = async (c: Client, params: { name: string; arguments: Record<string, unknown> }, request: { signal: AbortSignal; timeout: number }) => {
    for await (const message of c.experimental.tasks.callToolStream(params, undefined, request)) {
      if (message.type === 'result') return message.result;
      if (message.type === 'error') throw message.error;
    }
    throw new ParlanceError('invalid_response', `The MCP task for "${params.name}" ended without a result`);
  };

  const callOnce = async (c: Client, name: string, input: unknown, signal: AbortSignal, timeoutMs: number | undefined, task: boolean) => {
    let reject!: (error: unknown) => void;
    const broken = new Promise<never>((_, r) => (reject = r));
    broken.catch(() => {});
    inFlight.add(reject);
    try {
      const params = { name, arguments: (input ?? {}) as Record<string, unknown> };
      const options = { signal, timeout: timeoutMs ?? NO_SDK_TIMEOUT };
      const request = task ? callAsTask(c, params, options) : c.callTool(params, undefined, options);
      request.catch(() => {});
      return await Promise.race([request, broken]);
    } finally {
      inFlight.delete(reject);
    }
  };

  /** After a transport error: the session is checked (and renewed after a 404) before a call goes out on it. */
  const checkSession = async (name: string, signal: AbortSignal): Promise<void> => {
    if (!suspect) return;
    suspect = false;
    try {
      await onSession((c) => ping(c), signal);
    } catch (error) {
      suspect = true;
      if (signal.aborted) throw signal.reason ?? error;
      throw new ParlanceError('network', `The MCP server cannot be reached: "${name}" was not called`, { cause: error });
    }
  };

  const call = async (name: string, input: unknown, signal: AbortSignal, timeoutMs: number | undefined, task: boolean): Promise<unknown> => {
    if (closed) throw new ParlanceError('network', `The MCP server is not connected: "${name}" was not called`);
    await checkSession(name, signal);
    try {
      const result = await onSession((c) => callOnce(c, name, input, signal, timeoutMs, task), signal);
      return toToolOutput(result, name);
    } catch (error) {
      if (isConnectionError(error)) suspect = true;
      throw callError(error, name, signal);
    }
  };

  /** The MCP semantic conventions' attributes of a call (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/), on its execute_tool span. */
  const endpoint = !isClient(connection) && 'url' in connection ? new URL(connection.url) : undefined;
  const spanAttributes = (): Record<string, string | number> => {
    const http = (transport ?? client.transport) as Partial<StreamableHTTPClientTransport> | undefined;
    const out: Record<string, string | number> = { 'mcp.method.name': 'tools/call' };
    if (http?.sessionId) out['mcp.session.id'] = http.sessionId;
    if (http?.protocolVersion) out['mcp.protocol.version'] = http.protocolVersion;
    if (endpoint) {
      out['network.transport'] = 'tcp';
      out['server.address'] = endpoint.hostname;
      out['server.port'] = endpoint.port ? Number(endpoint.port) : endpoint.protocol === 'https:' ? 443 : 80;
    }
    return out;
  };
  const warn = options.onWarning ?? ((message: string) => console.warn(`[parlance/mcp] ${message}`));
  const build = (listed: McpTool[]): AnyTool[] => {
    // A tool that must run as a task (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks)
    // needs a server that offers task-augmented tools/call; without it no call could succeed.
    const tasks = client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
    const runnable = listed.filter((t) => {
      if (t.execution?.taskSupport !== 'required' || tasks) return true;
      warn(`The MCP tool "${t.name}" runs only as a task, and the server does not offer tasks for tools/call: it is left out`);
      return false;
    });
    const offered = options.filter ? runnable.filter(options.filter) : runnable;
    const names = engineToolNames(
      offered.map((t) => t.name),
      options.prefix,
    );
    return offered.map((server, i) => {
      const settings = options.tools?.[server.name] ?? {};
      const needsApproval = settings.needsApproval ?? options.needsApproval;
      const timeoutMs = settings.timeoutMs ?? options.timeoutMs;
      const description = server.description ?? server.title ?? server.annotations?.title;
      return tool({
        name: names[i]!,
        ...(description !== undefined ? { description } : {}),
        input: server.inputSchema as JSONSchema,
        ...(needsApproval !== undefined ? { needsApproval } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        spanAttributes,
        execute: (input, context) => call(server.name, input, context.signal, timeoutMs, server.execution?.taskSupport === 'required'),
      });
    });
  };

  const listAll = async (): Promise<McpTool[]> => {
    const out: McpTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    for (let page = 0; ; page++) {
      if (page >= maxPages) throw new ParlanceError('invalid_response', `The MCP server's tool list has more than ${maxPages} pages`);
      const result = await onSession((c) => onceMore(() => c.listTools(cursor === undefined ? {} : { cursor })));
      out.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return out;
      if (seen.has(cursor)) throw new ParlanceError('invalid_response', 'The MCP server repeated a tools/list cursor');
      seen.add(cursor);
    }
  };

  let current: readonly AnyTool[] = [];
  let pending: Promise<readonly AnyTool[]> | undefined;
  let dirty = false;
  const refresh = (): Promise<readonly AnyTool[]> => {
    dirty = true;
    pending ??= (async () => {
      try {
        // Changes announced while a list is read are picked up by reading again.
        while (dirty) {
          dirty = false;
          current = build(await listAll());
        }
        return current;
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };

  try {
    await refresh();
  } catch (error) {
    if (owned) await client.close().catch(() => {});
    throw ParlanceError.isInstance(error) ? error : new ParlanceError('invalid_response', `Could not list the MCP server's tools: ${String(error)}`, { cause: error });
  }
  function listenForChanges(c: Client): void {
    c.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        options.onToolsChanged?.(await refresh());
      } catch {
        // The previous list stays; its calls fail with typed errors if the server is gone.
      }
    });
  }
  listenForChanges(client);

  return {
    get client() {
      return client;
    },
    get tools() {
      return current;
    },
    async currentTools() {
      if (pending) await pending.catch(() => {});
      return current;
    },
    refresh,
    async close() {
      if (!owned) return;
      // Streamable HTTP: end the session on the server too (DELETE), as the transport spec asks of a client that leaves.
      const http = transport as Partial<StreamableHTTPClientTransport> | undefined;
      if (!closed && typeof http?.terminateSession === 'function') await http.terminateSession().catch(() => {});
      await client.close();
    },
  };
}
