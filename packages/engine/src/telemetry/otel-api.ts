/**
 * The few parts of the OpenTelemetry API the spans need, read from what an app registered
 * instead of imported from `@opentelemetry/api`, so an app without a tracer ships none of it
 * (the package is 25 KB minified in a Worker bundle, for spans that would all be no-ops).
 *
 * Every copy of `@opentelemetry/api` 1.x keeps the registered tracer provider and context
 * manager on one global, `Symbol.for('opentelemetry.js.api.1')` (its internal/global-utils.ts:
 * that is how several copies of the API in one app share one registration), and names the
 * active span's context key `Symbol.for('OpenTelemetry Context Key SPAN')` (createContextKey
 * is `Symbol.for(description)`). The numbers are the API's enums (SpanKind, SpanStatusCode).
 * The types below are the structural subset we call: a real `Tracer` from the API satisfies them.
 */

/** Attribute values as the API takes them. */
export type AttributeValue = string | number | boolean | Array<null | undefined | string> | Array<null | undefined | number> | Array<null | undefined | boolean>;

/**
 * Span attributes (`@opentelemetry/api`'s `Attributes`).
 *
 * @example
 * const attributes: Attributes = { 'app.tenant': 'acme' };
 */
export interface Attributes {
  [key: string]: AttributeValue | undefined;
}

/** An OpenTelemetry context (immutable key/value map). */
export interface Context {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): Context;
  deleteValue(key: symbol): Context;
}

/** A span's identity (W3C trace context). */
export interface SpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
}

/** The span methods the run's spans use. */
export interface Span {
  spanContext(): SpanContext;
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  isRecording(): boolean;
  end(): void;
}

/** A link from one span to another (a resumed run to the run it resumes). */
export interface Link {
  context: SpanContext;
  attributes?: Attributes;
}

/**
 * The tracer the spans are started with: `@opentelemetry/api`'s `Tracer` fits.
 *
 * @example
 * import { trace } from '@opentelemetry/api';
 * const tracer: Tracer = trace.getTracer('my-app');
 */
export interface Tracer {
  // The API's SpanOptions and Context are wider than what we pass; `any` keeps its Tracer assignable.
  startSpan(name: string, options?: any, context?: any): Span;
}

interface OtelGlobal {
  trace?: { getTracer(name: string, version?: string): Tracer };
  context?: { active(): Context; with<R>(context: Context, fn: () => R): R };
}

/** SpanKind.INTERNAL, SpanKind.CLIENT and SpanStatusCode.ERROR of the API. */
export const SPAN_KIND_INTERNAL = 0;
export const SPAN_KIND_CLIENT = 2;
export const STATUS_ERROR = 2;

const GLOBAL = Symbol.for('opentelemetry.js.api.1');
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

const registered = (): OtelGlobal | undefined => (globalThis as Record<symbol, OtelGlobal | undefined>)[GLOBAL];

/** The API's ROOT_CONTEXT, for when no context manager is registered. */
class BaseContext implements Context {
  readonly #values: Map<symbol, unknown>;
  constructor(values?: Map<symbol, unknown>) {
    this.#values = values ?? new Map();
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): Context {
    return new BaseContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): Context {
    const values = new Map(this.#values);
    values.delete(key);
    return new BaseContext(values);
  }
}
const ROOT_CONTEXT: Context = new BaseContext();

/** The registered provider's tracer, or undefined when the app registered none (nothing to trace). */
export function globalTracer(name: string): Tracer | undefined {
  return registered()?.trace?.getTracer(name);
}

/** `context.active()`. */
export function activeContext(): Context {
  return registered()?.context?.active() ?? ROOT_CONTEXT;
}

/** `context.with(context, fn)`: without a context manager the API just calls `fn`. */
export function withContext<R>(context: Context, fn: () => R): R {
  const manager = registered()?.context;
  return manager ? manager.with(context, fn) : fn();
}

/** `trace.setSpan(context, span)`. */
export function contextWithSpan(context: Context, span: Span): Context {
  return context.setValue(SPAN_KEY, span);
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** `isSpanContextValid`: well-formed and not the all-zero ids. */
export function isSpanContextValid(context: SpanContext): boolean {
  return TRACE_ID.test(context.traceId) && context.traceId !== '0'.repeat(32) && SPAN_ID.test(context.spanId) && context.spanId !== '0'.repeat(16);
}
