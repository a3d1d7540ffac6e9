/**
 * A run's span context kept in the thread's metadata, so the next run of the same
 * thread (a resume after an approval, possibly in another process, hours later) links
 * to it. Written as a W3C `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header),
 * the one format every tracing backend reads. The thread may come from a browser:
 * anything that is not a well-formed traceparent is ignored.
 */
import { isSpanContextValid, type SpanContext } from './otel-api.ts';

/**
 * The thread metadata key under which a traced run leaves its span context
 * (`{ traceparent }`), so the thread's next run links to it.
 *
 * @example
 * ```ts
 * const result = await engine.chat({ prompt: 'hi' });
 * result.thread.metadata?.[TRACE_METADATA_KEY]; // { traceparent: '00-…-…-01' } when a tracer recorded the run
 * ```
 */
export const TRACE_METADATA_KEY = 'parlance.trace';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function toTraceparent(context: SpanContext): string {
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/** The span context a thread's metadata names, or undefined. */
export function traceFromMetadata(metadata: Record<string, unknown> | undefined): SpanContext | undefined {
  const entry = metadata?.[TRACE_METADATA_KEY];
  if (typeof entry !== 'object' || entry === null) return undefined;
  const value = (entry as { traceparent?: unknown }).traceparent;
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const context: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(context) ? context : undefined;
}

/** Metadata with this run's context recorded (the rest kept). */
export function withTrace(metadata: Record<string, unknown> | undefined, context: SpanContext): Record<string, unknown> {
  return { ...metadata, [TRACE_METADATA_KEY]: { traceparent: toTraceparent(context) } };
}
