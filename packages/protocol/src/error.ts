/**
 * Errors are data: a closed set of stable codes, an HTTP status where one exists,
 * and whether trying again may help. Recognised across duplicated package copies
 * through a Symbol.for marker (`ParlanceError.isInstance`), never `instanceof`.
 *
 * @example
 * const code: ErrorCode = ERROR_CODES.includes(raw as ErrorCode) ? (raw as ErrorCode) : 'unknown';
 */
export const ERROR_CODES = [
  'invalid_request',
  'authentication',
  'permission',
  'not_found',
  'rate_limited',
  'overloaded',
  'server_error',
  'timeout',
  'network',
  'context_length_exceeded',
  'content_filter',
  'invalid_response',
  'aborted',
  'tool_error',
  /** A run went over a limit the server sets (events, bytes or duration per run); the server stopped it. */
  'run_limit',
  /** The server instance running the upstream call stopped (crash, redeploy) before the run finished. */
  'run_lost',
  /** The server's run store (Redis, Durable Object) did not answer; nothing was started or the run could not go on. */
  'store_unavailable',
  /**
   * The run's events were dropped to keep the server's memory within its budget (or its retention
   * ended): it cannot be resumed. Start a fresh run from the thread you hold (`retry()` does).
   */
  'run_expired',
  /** A chat is streaming a response: editing, regenerating or switching versions waits until it ends (`await chat.idle()`). */
  'busy',
  /** The run is paused for an approval, an answer or a client tool result; answer it first (see `pendingInputs`). */
  'run_paused',
  /** The browser could not save a chat (storage full, a write cut off, a storage that kept conflicting); the chat goes on in memory and the next save tries again. */
  'storage',
  /** A save found a newer stored revision than the one it was based on (another tab saved first): reload, merge, save again. */
  'conflict',
  'unknown',
] as const;

/**
 * A `ParlanceError` code (one of `ERROR_CODES`).
 *
 * @example
 * const code: ErrorCode = 'rate_limited';
 */
export type ErrorCode = (typeof ERROR_CODES)[number];

const MARKER = Symbol.for('parlance.error');

/** Codes for which the same request may succeed later. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'overloaded', 'server_error', 'timeout', 'network', 'run_lost', 'store_unavailable']);

/**
 * 
 *
 * @example
 * throw new ParlanceError('rate_limited', 'Slow down', { status: 429, retryAfterMs: 2_000 });
 */
export interface ParlanceErrorOptions {
  status?: number;
  retryable?: boolean;
  retryAfterMs?: number;
  /** Where in the input the problem is (e.g. ['messages', 3, 'parts', 0, 'type']). */
  path?: (string | number)[];
  cause?: unknown;
}

/**
 * The one error type: a stable `code` (see `ERROR_CODES`), `status`, `retryable`, `retryAfterMs` and `path`.
 *
 * @example
 * try {
 *   await engine.chat({ model: 'openai:gpt-5-mini', prompt: 'Hi' });
 * } catch (error) {
 *   const e = ParlanceError.from(error);
 *   if (e.code === 'rate_limited' && e.retryable) setTimeout(retry, e.retryAfterMs ?? 1000);
 * }
 */
export class ParlanceError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'ParlanceError';
  readonly code: ErrorCode;
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly path?: (string | number)[];

  constructor(code: ErrorCode, message: string, options: ParlanceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.status !== undefined) this.status = options.status;
    this.retryable = options.retryable ?? RETRYABLE.has(code);
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.path !== undefined) this.path = options.path;
  }

  static isInstance(value: unknown): value is ParlanceError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** Wraps anything thrown into a ParlanceError, keeping one that already is. */
  static from(value: unknown, fallback: ErrorCode = 'unknown'): ParlanceError {
    if (ParlanceError.isInstance(value)) return value;
    if (isAbortError(value)) return new ParlanceError('aborted', 'The operation was aborted', { cause: value });
    const message = value instanceof Error ? value.message : String(value);
    return new ParlanceError(fallback, message, { cause: value });
  }

  /** The JSON shape sent over the wire: no stack, no cause. */
  toJSON(): ErrorPayload {
    const out: ErrorPayload = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.status !== undefined) out.status = this.status;
    if (this.retryAfterMs !== undefined) out.retryAfterMs = this.retryAfterMs;
    if (this.path !== undefined) out.path = this.path;
    return out;
  }
}

/**
 * An error as data (what `ParlanceError.toJSON()` gives and error events carry).
 *
 * @example
 * const payload: ErrorPayload = ParlanceError.from(error).toJSON();
 */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  path?: (string | number)[];
}

/**
 * Whether a string is one of `ERROR_CODES`.
 *
 * @example
 * const code = isErrorCode(body.error?.code) ? body.error.code : 'unknown';
 */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/**
 * Whether a thrown value is an abort or a timeout (`name` is `AbortError` or `TimeoutError`, as `AbortSignal` throws them).
 *
 * @example
 * try { await run(signal); } catch (e) { if (!isAbortError(e)) report(e); }
 */
export function isAbortError(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    ((value as { name?: unknown }).name === 'AbortError' || (value as { name?: unknown }).name === 'TimeoutError')
  );
}

/**
 * Maps an HTTP status to the protocol's code (provider-specific bodies may refine it).
 *
 * @example
 * throw new ParlanceError(errorCodeForStatus(response.status), await response.text(), { status: response.status });
 */
export function errorCodeForStatus(status: number): ErrorCode {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 413) return 'invalid_request';
  if (status === 429) return 'rate_limited';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'server_error';
  return 'unknown';
}
