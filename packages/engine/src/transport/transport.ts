/**
 * Sends a request with `fetch` alone (browser, Node, Bun, Deno, Workers) and hands
 * back the response body once its first byte has arrived. Until then nothing has
 * reached the caller, so failures are retried (backoff with jitter, `Retry-After`
 * honoured); after it, never: a retry would replay text the user already saw.
 * Timeouts are AbortSignals and timers here, so the dialects stay pure.
 */
import { ParlanceError } from '@parlance/protocol';
import { httpError, type ErrorBodyParser } from './http-error.ts';
import { redact } from './redact.ts';
import { isRedirectFailure, isRedirectStatus, NO_REDIRECT } from './redirect.ts';
import { backoffDelay, isRetryableStatus, parseRetryAfter, resolveRetryOptions, type RetryOptions } from './retry.ts';
import { sleep as defaultSleep, type Sleep } from './sleep.ts';

/**
 * 
 *
 * @example
 * createTransport({ timeouts: { firstByteMs: 30_000 } });
 */
export interface TimeoutOptions {
  /**
   * From sending the request to the first byte of the body (default 120 s). Reasoning
   * models may think for a while before their first token, so this is generous.
   * 0 turns it off.
   */
  firstByteMs?: number;
  /** Between two chunks of the body (default 300 s: long silent reasoning exists). 0 turns it off. */
  idleMs?: number;
}

/**
 * What `onRetry` gets before each retry.
 *
 * @example
 * createTransport({ onRetry: ({ attempt, delayMs, error }) => console.warn(attempt, delayMs, error.code) });
 */
export interface RetryInfo {
  /** The retry about to be made (1 for the first retry). */
  attempt: number;
  delayMs: number;
  error: ParlanceError;
}

/**
 * What `createTransport` takes: fetch, retry, timeouts, and hooks.
 *
 * @example
 * createTransport({ fetch: tracedFetch, retry: false });
 */
export interface ProviderTransportOptions {
  fetch?: typeof globalThis.fetch;
  retry?: RetryOptions | false;
  timeouts?: TimeoutOptions;
  /** Injectable for tests: measure the backoff without waiting it out. */
  sleep?: Sleep;
  /** Jitter source (default Math.random). */
  random?: () => number;
  /** Called before each retry (logging, metrics). */
  onRetry?: (info: RetryInfo) => void;
}

/**
 * 
 *
 * @example
 * await transport.open({ url, headers, body: JSON.stringify(body), providerName: 'Acme' });
 */
export interface TransportRequest {
  url: string;
  headers: Record<string, string>;
  /** JSON text, a multipart form (audio uploads; fetch sets its boundary) or raw bytes (Gemini's file uploads). All can be sent again on a retry. */
  body: string | FormData | Blob;
  signal?: AbortSignal | undefined;
  /** Named in error messages ("OpenAI returned HTTP 429: ..."). */
  providerName: string;
  parseError?: ErrorBodyParser | undefined;
  /** Values removed from every error message (the API key). */
  secrets?: readonly (string | undefined)[];
}

/**
 * 
 *
 * @example
 * const opened = await transport.open(request);
 * if (opened.ok) for await (const chunk of opened.body) handle(chunk);
 */
export interface OpenedStream {
  ok: true;
  status: number;
  headers: Headers;
  /** The body, first chunk included, guarded by the idle timeout. */
  body: ReadableStream<Uint8Array>;
  /** Why the body failed, once it has: 'timeout', 'network' or 'aborted'. */
  failure(): ParlanceError | undefined;
  attempts: number;
}

export interface FailedOpen {
  ok: false;
  error: ParlanceError;
  attempts: number;
}

/**
 * What `Transport.open` resolves to: the opened stream, or the typed error of the last attempt.
 *
 * @example
 * const result: OpenResult = await transport.open(request);
 * if (!result.ok) throw result.error;
 */
export type OpenResult = OpenedStream | FailedOpen;

/**
 * Opens an HTTP request for a provider model (`createTransport` makes the default one).
 *
 * @example
 * const transport: Transport = createTransport();
 */
export interface Transport {
  open(request: TransportRequest): Promise<OpenResult>;
}

const DEFAULT_FIRST_BYTE_MS = 120_000;
const DEFAULT_IDLE_MS = 300_000;

type Attempt = { ok: true; stream: Omit<OpenedStream, 'attempts'> } | { ok: false; error: ParlanceError; retry: boolean };

function abortedError(signal: AbortSignal | undefined, cause?: unknown): ParlanceError {
  const reason = signal?.reason;
  const message = reason instanceof Error && reason.message && reason.name !== 'AbortError' ? reason.message : 'The request was aborted';
  return new ParlanceError('aborted', message, { retryable: false, cause: cause ?? reason });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? ((cause as { code?: string }).code ?? cause.message) : undefined;
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
}

/** Follows the caller's signal into a per-attempt controller; returns the unlink. */
function link(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => {};
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/**
 * The reason a response is cancelled with when its reader stops without giving one (the decoder after a
 * `finish`, a `break`). Made once: a `DOMException` built per call (what `abort()` and `cancel()` do when given
 * no reason) cost ~0.2 ms of CPU per call on Node 20, more than the rest of a short streamed call's ending.
 */
let stopped: DOMException | undefined;
function stoppedReason(): DOMException {
  stopped ??= new DOMException('The reader stopped reading the response', 'AbortError');
  return stopped;
}

function redirected(providerName: string, status?: number): ParlanceError {
  const answer = status === undefined ? 'a redirect' : `a redirect (HTTP ${status})`;
  return new ParlanceError(
    'invalid_response',
    `${providerName} answered with ${answer}, which provider calls do not follow (it would carry the API key to another address): set the base URL to the address the API answers at`,
    // No `status`: it would be the upstream's 3xx, which a server passing this error on must not answer with.
    { retryable: false },
  );
}

function timeoutReason(message: string): Error {
  const error = new Error(message);
  error.name = 'TimeoutError';
  return error;
}

/**
 * The fetch transport providers use: retries with backoff (honouring Retry-After), timeouts, abort, typed errors.
 *
 * @example
 * const transport = createTransport({ retry: { maxRetries: 4 }, timeouts: { firstByteMs: 20_000 } });
 * const model = openai.model('gpt-5-mini', { transport });
 */
export function createTransport(options: ProviderTransportOptions = {}): Transport {
  const retry = resolveRetryOptions(options.retry);
  const firstByteMs = options.timeouts?.firstByteMs ?? DEFAULT_FIRST_BYTE_MS;
  const idleMs = options.timeouts?.idleMs ?? DEFAULT_IDLE_MS;
  const wait = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;

  async function attempt(request: TransportRequest): Promise<Attempt> {
    // Read at call time so a fetch patched after construction (tests, polyfills) is used.
    const fetchFn = options.fetch ?? globalThis.fetch;
    const { signal, providerName } = request;
    const secrets = request.secrets ?? [];
    const controller = new AbortController();
    const unlink = link(signal, controller);
    let timedOut = false;
    const timer =
      firstByteMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(timeoutReason(`${providerName} sent no data within ${firstByteMs} ms`));
          }, firstByteMs)
        : undefined;
    const settle = () => {
      if (timer !== undefined) clearTimeout(timer);
    };

    const thrown = (error: unknown): Attempt => {
      settle();
      unlink();
      if (signal?.aborted) return { ok: false, error: abortedError(signal, error), retry: false };
      if (timedOut) {
        return { ok: false, error: new ParlanceError('timeout', `${providerName} sent no data within ${firstByteMs} ms`), retry: true };
      }
      if (isRedirectFailure(error)) return { ok: false, error: redirected(providerName), retry: false };
      const message = redact(`Could not reach ${providerName}: ${describe(error)}`, secrets);
      return { ok: false, error: new ParlanceError('network', message, { cause: error }), retry: true };
    };

    let response: Response;
    try {
      response = await fetchFn(request.url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
        redirect: NO_REDIRECT,
      });
    } catch (error) {
      return thrown(error);
    }

    if (isRedirectStatus(response.status)) {
      // Only where fetch hands a redirect back ('manual'), or a 3xx that names no address.
      response.body?.cancel().catch(() => {});
      settle();
      unlink();
      return { ok: false, error: redirected(providerName, response.status), retry: false };
    }
    if (!response.ok) {
      let text = '';
      try {
        text = await response.text();
      } catch (error) {
        if (signal?.aborted || timedOut) return thrown(error);
      }
      settle();
      unlink();
      const retryAfterMs = parseRetryAfter(response.headers);
      const shouldRetry = response.headers.get('x-should-retry');
      const error = httpError({
        status: response.status,
        statusText: response.statusText,
        body: text,
        providerName,
        retryAfterMs,
        parse: request.parseError,
        secrets,
        retryableStatus: isRetryableStatus(response.status),
      });
      // OpenAI and Anthropic say explicitly whether a retry can help (their SDKs obey it).
      const retryable = shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : error.retryable && isRetryableStatus(response.status);
      const tooLong = retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs;
      return { ok: false, error, retry: retryable && !tooLong };
    }

    if (!response.body) {
      settle();
      unlink();
      return { ok: false, error: new ParlanceError('invalid_response', `${providerName} sent an empty response`), retry: false };
    }

    const reader = response.body.getReader();
    let first: ReadableStreamReadResult<Uint8Array>;
    try {
      first = await reader.read();
    } catch (error) {
      reader.cancel().catch(() => {});
      return thrown(error);
    }
    settle();
    let failure: ParlanceError | undefined;
    let pending: Uint8Array | undefined = first.done ? undefined : first.value;
    // The body arrived whole (the upstream closed it and its last chunk was read). A cancel then has no request
    // left to stop, and aborting one anyway costs a dispatch through fetch's own listeners (~40 µs a call on Node).
    let ended = first.done;
    reader.closed.then(
      () => {
        ended = true;
      },
      () => {},
    );
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      unlink();
    };

    const body = new ReadableStream<Uint8Array>(
      {
        async pull(out) {
          if (pending) {
            out.enqueue(pending);
            pending = undefined;
            return;
          }
          if (ended) {
            release();
            out.close();
            return;
          }
          let idle = false;
          const idleTimer =
            idleMs > 0
              ? setTimeout(() => {
                  idle = true;
                  controller.abort(timeoutReason(`${providerName} sent nothing for ${idleMs} ms`));
                }, idleMs)
              : undefined;
          try {
            const next = await reader.read();
            if (next.done) {
              release();
              out.close();
            } else out.enqueue(next.value);
          } catch (error) {
            if (signal?.aborted) failure = abortedError(signal, error);
            else if (idle) failure = new ParlanceError('timeout', `${providerName} sent nothing for ${idleMs} ms mid-stream`);
            else failure = new ParlanceError('network', redact(`The connection to ${providerName} failed mid-stream: ${describe(error)}`, secrets), { cause: error });
            release();
            out.error(failure);
          } finally {
            if (idleTimer !== undefined) clearTimeout(idleTimer);
          }
        },
        cancel(reason) {
          // The consumer stopped (abort, break, or the decoder after a finish): close the upstream request too.
          // The body first (for fetch, cancelling it ends the request), then the signal for a fetch that only
          // watches that; both with a reason, so neither builds an AbortError of its own.
          if (!ended) {
            const why = reason ?? stoppedReason();
            reader.cancel(why).catch(() => {});
            controller.abort(why);
          }
          release();
        },
      },
      { highWaterMark: 0 },
    );
    return {
      ok: true,
      stream: { ok: true, status: response.status, headers: response.headers, body, failure: () => failure },
    };
  }

  return {
    async open(request) {
      const { signal } = request;
      for (let attempts = 1; ; attempts++) {
        if (signal?.aborted) return { ok: false, error: abortedError(signal), attempts: attempts - 1 };
        const result = await attempt(request);
        if (result.ok) return { ...result.stream, attempts };
        if (!result.retry || attempts > retry.maxRetries) return { ok: false, error: result.error, attempts };
        const delayMs = result.error.retryAfterMs ?? backoffDelay(attempts - 1, retry, random);
        options.onRetry?.({ attempt: attempts, delayMs, error: result.error });
        try {
          await wait(delayMs, signal);
        } catch {
          return { ok: false, error: abortedError(signal), attempts };
        }
      }
    },
  };
}
