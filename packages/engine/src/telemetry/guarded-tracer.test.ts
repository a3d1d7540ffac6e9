import { AsyncLocalStorage } from 'node:async_hooks';
import { type Context, type ContextManager, context as otelContext, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { fakeModel } from '@parlance/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngine, REDACTED, secretForms, tool } from '../index.ts';
import { memoryTracer, type SpanRecord } from '../../test/fixtures/tracing.ts';
import { guardTracer } from './guarded-tracer.ts';

// A key with characters that URL-encoding and JSON-escaping change, so each form differs from the raw key.
const KEY = 'sk-proj/Tq+9"vX0aB1cD2eF3gH4';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const hex = (text: string) => Buffer.from(text).toString('hex');

/** Every form a header or an upstream echo carries the key in (see `secretForms`). */
const FORMS: [string, string][] = [
  ['raw', KEY],
  ['Bearer', `Bearer ${KEY}`],
  ['base64 of "Bearer key"', b64(`Bearer ${KEY}`)],
  ['Basic user:key', `Basic ${b64(`user:${KEY}`)}`],
  ['base64 of the key', b64(KEY)],
  ['base64url of "Bearer key"', b64(`Bearer ${KEY}`).replace(/\+/g, '-').replace(/\//g, '_')],
  ['URL-encoded', encodeURIComponent(KEY)],
  ['URL-encoded base64', encodeURIComponent(b64(`Bearer ${KEY}`))],
  ['JSON-escaped', JSON.stringify(KEY).slice(1, -1)],
  ['hex', hex(KEY)],
  ['HEX', hex(KEY).toUpperCase()],
];

type Surface = 'attribute' | 'event attribute' | 'status message';
const SURFACES: Surface[] = ['attribute', 'event attribute', 'status message'];

/** Every string a span carries: attribute keys and values, event names and attributes, the status message. */
function texts(spans: SpanRecord[]): string[] {
  const out: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const v of value) add(v);
  };
  for (const span of spans) {
    for (const entry of Object.entries(span.attributes)) add(entry);
    for (const event of span.events) {
      add(event.name);
      for (const entry of Object.entries(event.attributes)) add(entry);
    }
    add(span.status.message);
  }
  return out;
}

/** A tool that puts `echo` on its span the way `surface` says: as its result, in an event it adds, or in its error. */
function echoTool(echo: string, surface: Surface) {
  return tool({
    name: 'fetch_account',
    input: z.object({ id: z.string() }),
    execute: () => {
      if (surface === 'status message') throw new Error(`upstream answered 401: {"error":"invalid key ${echo}"}`);
      if (surface === 'event attribute') trace.getActiveSpan()?.addEvent('upstream.response', { 'http.response.body': `401 ${echo}` });
      return { echoed: surface === 'attribute' ? echo : 'ok' };
    },
  });
}

describe('no form of a secret reaches a span (recordContent on)', () => {
  // A context manager so a tool's code finds its span as the active span, as an app's would.
  const storage = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
    bind: (_ctx, target) => target,
    enable() {
      return this;
    },
    disable() {
      storage.disable();
      return this;
    },
  };
  beforeAll(() => otelContext.setGlobalContextManager(manager));
  afterAll(() => otelContext.disable());

  const cases = FORMS.flatMap(([form, echo]) => SURFACES.map((surface) => [form, surface, echo] as const));
  it.each(cases)('%s in a span %s is redacted', async (_form, surface, echo) => {
    const { tracer, spans } = memoryTracer();
    const model = fakeModel({ script: [{ toolCalls: [{ id: 'c1', name: 'fetch_account', input: { id: 'a1' } }] }, { text: 'Done.' }] });
    // The key comes from the engine's environment, where providers read it.
    const engine = createEngine({ model, env: { OPENAI_API_KEY: KEY }, tools: [echoTool(echo, surface)], telemetry: { tracer, recordContent: true } });
    await engine.chat({ prompt: 'Look up a1' });
    const all = texts(spans());
    const toolSpan = spans().find((s) => s.name === 'execute_tool fetch_account')!;
    // The surface was written (the guard replaced the key, it did not drop the write)...
    if (surface === 'status message') expect(toolSpan.status.message).toContain(REDACTED);
    if (surface === 'event attribute') expect(String(toolSpan.events[0]?.attributes['http.response.body'])).toContain(REDACTED);
    if (surface === 'attribute') expect(String(toolSpan.attributes['gen_ai.tool.call.result'])).toContain(REDACTED);
    // ...and no form of the key is left anywhere on any span.
    for (const text of all) {
      expect(text).not.toContain(echo);
      for (const f of secretForms([KEY])) expect(text).not.toContain(f);
    }
  });

  it('a secret passed as telemetry.secrets (an apiKey given in code) is kept out too', async () => {
    const { tracer, spans } = memoryTracer();
    const token = 'proxy-token-0123456789abcdef';
    const model = fakeModel({ script: [{ toolCalls: [{ id: 'c1', name: 'fetch_account', input: { id: 'a1' } }] }, { text: 'Done.' }] });
    const engine = createEngine({ model, env: {}, tools: [echoTool(b64(`Bearer ${token}`), 'status message')], telemetry: { tracer, recordContent: true, secrets: [token] } });
    await engine.chat({ prompt: 'x' });
    expect(spans().find((s) => s.name === 'execute_tool fetch_account')!.status.message).toContain(REDACTED);
    for (const text of texts(spans())) for (const f of secretForms([token])) expect(text).not.toContain(f);
  });

  it('recordException, setAttributes, link and start attributes of a guarded span are scrubbed', () => {
    const { tracer, spans } = memoryTracer();
    const guarded = guardTracer(tracer, secretForms([KEY]));
    const span = guarded.startSpan('s', { attributes: { a: `x ${KEY}` }, links: [] }) as ReturnType<typeof guarded.startSpan> & { recordException(e: unknown): void };
    span.setAttributes({ b: [`Bearer ${KEY}`] });
    span.recordException(new Error(`boom ${b64(`Bearer ${KEY}`)}`));
    span.end();
    const [record] = spans();
    expect(record!.attributes).toEqual({ a: `x ${REDACTED}`, b: [`Bearer ${REDACTED}`] });
    for (const text of texts(spans())) expect(text).not.toContain(KEY);
    expect(String(record!.events[0]?.attributes['exception.message'])).toContain(REDACTED);
  });
});
