/**
 * When and how long to wait before trying a request again. Only requests that have
 * delivered nothing to the caller are retried (the transport enforces that); this
 * file decides which failures are worth it and the delay.
 *
 * @example
 * openai.model('gpt-5-mini', { retry: { maxRetries: 5, initialDelayMs: 250 } });
 */

export interface RetryOptions {
  /** Attempts after the first (default 2, so at most 3 requests). */
  maxRetries?: number;
  /** The first backoff delay; doubled on each retry (default 500 ms). */
  initialDelayMs?: number;
  /** Upper bound of a backoff delay (default 8 s). */
  maxDelayMs?: number;
  /**
   * A `Retry-After` longer than this is not waited out: the error goes to the caller,
   * with `retryAfterMs` set, to decide (default 60 s).
   */
  maxRetryAfterMs?: number;
}

export interface ResolvedRetryOptions {
  maxRetries: number;
  initialDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

export function resolveRetryOptions(options: RetryOptions | false | undefined): ResolvedRetryOptions {
  const base = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };
  if (options === false) return { ...base, maxRetries: 0 };
  return {
    maxRetries: Math.max(0, options?.maxRetries ?? base.maxRetries),
    initialDelayMs: Math.max(0, options?.initialDelayMs ?? base.initialDelayMs),
    maxDelayMs: Math.max(0, options?.maxDelayMs ?? base.maxDelayMs),
    maxRetryAfterMs: Math.max(0, options?.maxRetryAfterMs ?? base.maxRetryAfterMs),
  };
}

/**
 * 408 request timeout, 409 conflict (OpenAI's lock contention), 429 rate limit, 5xx
 * and Anthropic's 529 overloaded. Other 4xx mean the request itself is wrong.
 * https://platform.openai.com/docs/guides/error-codes, https://docs.anthropic.com/en/api/errors
 *
 * @example
 * if (!response.ok && isRetryableStatus(response.status)) scheduleRetry();
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The server's own delay: `retry-after-ms` (OpenAI, Anthropic) first, then
 * `Retry-After` as seconds or an HTTP date (RFC 9110 §10.2.3,
 * https://www.rfc-editor.org/rfc/rfc9110#field.retry-after). Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const header = headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * Exponential backoff with jitter: the doubled delay, capped, then shortened by up to
 * a quarter at random so many clients failing together do not retry together.
 */
export function backoffDelay(retry: number, options: ResolvedRetryOptions, random: () => number): number {
  const exponential = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** retry);
  return Math.round(exponential * (1 - 0.25 * random()));
}
