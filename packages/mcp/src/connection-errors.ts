/**
 * Which failures are the connection's, not the server's answer: a reused keep-alive socket
 * that the server closed when it stopped ("other side closed", ECONNRESET, EPIPE), a refused
 * connection, a stream cut mid-response. Node's fetch (undici) throws `TypeError: fetch failed`
 * with the socket error as its `cause`; workerd says "Network connection lost".
 *
 * What may be sent again after one (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http:
 * "Disconnection SHOULD NOT be interpreted as the client cancelling its request"): a server
 * may go on running a request whose connection broke, so only steps that change nothing are
 * repeated (`initialize`, `ping`, `tools/list`), once. A `tools/call` is never sent twice:
 * the tool may have run.
 */

const CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const MESSAGES = /fetch failed|network connection lost|other side closed|terminated/i;
/** How deep a `cause` chain is followed (undici nests two levels). */
const MAX_DEPTH = 5;

/** Whether `error` (or its cause) is a broken or refused connection rather than an answer. */
export function isConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const { code, name, message, cause } = current as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    if (name === 'AbortError' || name === 'TimeoutError') return false;
    if (typeof code === 'string' && CODES.has(code)) return true;
    if (current instanceof TypeError && typeof message === 'string' && MESSAGES.test(message)) return true;
    current = cause;
  }
  return false;
}

/** Runs a step that changes nothing on the server; after a connection error, once more (on a new socket). */
export async function onceMore<T>(step: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!isConnectionError(error) || signal?.aborted) throw error;
    return step();
  }
}
