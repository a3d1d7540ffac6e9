/**
 * The one place every span write of a run passes through: the tracer the run's spans are started
 * with is wrapped, and so is each span it returns (the span a tool's code finds as the active span
 * too). Attributes given at start, link attributes, `setAttribute`, `setAttributes`, `addEvent`
 * attributes, `setStatus` messages and `recordException` have every form of every secret
 * (`secretForms`: raw, `Bearer`, `Basic`, base64 at every alignment, URL-encoded, JSON-escaped, hex)
 * replaced by `[redacted]`, the same forms the server's scrubber and the transport's error redaction use.
 */
import { redactForms } from '../transport/redact.ts';
import type { Attributes, AttributeValue, Span, Tracer } from './otel-api.ts';

function scrubValue(value: AttributeValue | undefined, forms: readonly string[]): AttributeValue | undefined {
  if (typeof value === 'string') return redactForms(value, forms);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? redactForms(v, forms) : v)) as AttributeValue;
  return value;
}

function scrubAttributes<T extends Attributes | undefined>(attributes: T, forms: readonly string[]): T {
  if (!attributes || typeof attributes !== 'object') return attributes;
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) out[redactForms(key, forms)] = scrubValue(value, forms);
  return out as T;
}

/** An exception as `recordException` takes it: a string, or an object with `message`, `name`, `stack`. */
function scrubException(exception: unknown, forms: readonly string[]): unknown {
  if (typeof exception === 'string') return redactForms(exception, forms);
  if (typeof exception !== 'object' || exception === null) return exception;
  const source = exception as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of ['code', 'name', 'message', 'stack'] as const) {
    const value = source[key];
    if (value !== undefined) out[key] = typeof value === 'string' ? redactForms(value, forms) : value;
  }
  return out;
}

/**
 * The forms plus each form JSON-escaped once more, longest first: content attributes are JSON
 * (`gen_ai.tool.call.result` is the result's JSON), so a form that was already JSON-escaped (a key
 * echoed inside a JSON error body a tool returns) reads escaped twice there.
 */
function withinJson(forms: readonly string[]): string[] {
  const out = new Set(forms);
  for (const form of forms) out.add(JSON.stringify(form).slice(1, -1));
  return [...out].sort((a, b) => b.length - a.length);
}

type AnySpan = Span & Record<string, unknown>;

function guardSpan(span: Span, forms: readonly string[]): Span {
  const inner = span as AnySpan;
  // Every method of the API's Span is forwarded; the ones that write text are scrubbed first.
  // Methods return the wrapper (the API's chaining), so a chained write is guarded too.
  const guarded: AnySpan = {
    spanContext: () => inner.spanContext(),
    isRecording: () => inner.isRecording(),
    end: (time?: unknown) => (inner.end as (t?: unknown) => void)(time),
    setAttribute(key: string, value: AttributeValue) {
      inner.setAttribute(redactForms(key, forms), scrubValue(value, forms) as AttributeValue);
      return guarded;
    },
    setAttributes(attributes: Attributes) {
      inner.setAttributes(scrubAttributes(attributes, forms));
      return guarded;
    },
    setStatus(status: { code: number; message?: string }) {
      inner.setStatus(status.message === undefined ? status : { ...status, message: redactForms(status.message, forms) });
      return guarded;
    },
    addEvent(name: string, attributesOrTime?: unknown, time?: unknown) {
      const attributes = attributesOrTime && typeof attributesOrTime === 'object' && !Array.isArray(attributesOrTime) && !(attributesOrTime instanceof Date) ? scrubAttributes(attributesOrTime as Attributes, forms) : attributesOrTime;
      (inner.addEvent as (n: string, a?: unknown, t?: unknown) => void)?.(redactForms(name, forms), attributes, time);
      return guarded;
    },
    recordException(exception: unknown, time?: unknown) {
      (inner.recordException as (e: unknown, t?: unknown) => void)?.(scrubException(exception, forms), time);
    },
    updateName(name: string) {
      (inner.updateName as (n: string) => void)?.(redactForms(name, forms));
      return guarded;
    },
    addLink(link: { context: unknown; attributes?: Attributes }) {
      (inner.addLink as (l: unknown) => void)?.({ ...link, attributes: scrubAttributes(link.attributes, forms) });
      return guarded;
    },
    addLinks(links: { context: unknown; attributes?: Attributes }[]) {
      (inner.addLinks as (l: unknown) => void)?.(links.map((link) => ({ ...link, attributes: scrubAttributes(link.attributes, forms) })));
      return guarded;
    },
  };
  return guarded;
}

/**
 * `tracer` with every span it starts guarded (see the file's comment), or `tracer` itself when
 * there are no forms to keep out.
 *
 * @example
 * const tracer = guardTracer(trace.getTracer('app'), secretForms([process.env.OPENAI_API_KEY]));
 */
export function guardTracer(tracer: Tracer, secretForms: readonly string[]): Tracer {
  if (secretForms.length === 0) return tracer;
  const forms = withinJson(secretForms);
  return {
    startSpan(name: string, options?: { attributes?: Attributes; links?: { context: unknown; attributes?: Attributes }[] }, context?: unknown) {
      const scrubbed = options && {
        ...options,
        attributes: scrubAttributes(options.attributes, forms),
        ...(options.links ? { links: options.links.map((link) => ({ ...link, attributes: scrubAttributes(link.attributes, forms) })) } : {}),
      };
      return guardSpan(tracer.startSpan(redactForms(name, forms), scrubbed, context), forms);
    },
  };
}
