import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Context, type ContextManager, context as otelContext, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { createThread, threadAfterRun, type ChatFinishEvent, type Event } from '@parlance/protocol';
import { fakeModel } from '@parlance/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChatSession, createEngine, tool } from '../index.ts';
import { deleteFile } from '../../test/fixtures/session-tools.ts';
import { memoryTracer, type SpanRecord } from '../../test/fixtures/tracing.ts';
import { TRACE_METADATA_KEY } from './trace-context.ts';

const run = promisify(execFile);

const weather = tool({
  name: 'weather',
  description: 'Weather in a city',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, tempC: 21 }),
});

function byName(spans: SpanRecord[], name: string): SpanRecord[] {
  return spans.filter((s) => s.name === name);
}

function one(spans: SpanRecord[], name: string): SpanRecord {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

const twoSteps = [
  { text: 'Let me look.', toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Paris' } }], usage: { inputTokens: 10, outputTokens: 5, cost: 0.001 } },
  { text: 'It is 21 °C in Paris.', usage: { inputTokens: 30, outputTokens: 8, cost: 0.002 } },
];

describe('OpenTelemetry spans of a run', () => {
  afterEach(() => trace.disable());

  it('a two-step tool run: invoke_agent with chat, execute_tool, chat children', async () => {
    const { tracer, spans } = memoryTracer();
    const model = fakeModel({ script: twoSteps, provider: 'google', modelId: 'gemini-2.5-flash' });
    const engine = createEngine({ model, tools: [weather], telemetry: { tracer, agentName: 'helper' } });
    const result = await engine.chat({ prompt: 'Weather in Paris?', thread: { version: 1, id: 'thread-7', messages: [] } });
    expect(result.haltReason).toBe('completed');

    const all = spans();
    expect(all).toHaveLength(4);
    expect(all.every((s) => s.ended)).toBe(true);
    const root = one(all, 'invoke_agent helper');
    const chats = byName(all, 'chat gemini-2.5-flash');
    const toolSpan = one(all, 'execute_tool weather');
    expect(chats).toHaveLength(2);
    expect(root.parentSpanId).toBeUndefined();
    for (const child of [...chats, toolSpan]) {
      expect(child.traceId).toBe(root.traceId);
      expect(child.parentSpanId).toBe(root.spanId);
    }
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'helper',
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.conversation.id': 'thread-7',
      'gen_ai.usage.input_tokens': 40,
      'gen_ai.usage.output_tokens': 13,
      'parlance.halt_reason': 'completed',
    });
    expect(root.attributes['parlance.usage.cost']).toBeCloseTo(0.003);

    const [first, second] = [...chats].sort((a, b) => Number(a.attributes['parlance.step']) - Number(b.attributes['parlance.step']));
    expect(first!.kind).toBe(SpanKind.CLIENT);
    expect(first!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.response.model': 'gemini-2.5-flash',
      'gen_ai.response.finish_reasons': ['tool_call'],
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
      'parlance.usage.cost': 0.001,
      'parlance.step': 0,
    });
    expect(second!.attributes).toMatchObject({ 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 30, 'parlance.step': 1 });
    expect(toolSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'weather',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.description': 'Weather in a city',
      'gen_ai.tool.type': 'function',
      'parlance.step': 0,
    });
    // Content stays out unless asked for.
    for (const span of all) {
      for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']) {
        expect(span.attributes[key]).toBeUndefined();
      }
    }
    // The thread carries the run's context for the next run.
    expect(result.thread.metadata?.[TRACE_METADATA_KEY]).toEqual({ traceparent: `00-${root.traceId}-${root.spanId}-01` });
  });

  it("puts the run's trace context on chat-finish as `metadata`, so a browser folding the events keeps it", async () => {
    const { tracer } = memoryTracer();
    const engine = createEngine({ model: fakeModel({ script: twoSteps }), tools: [weather], telemetry: { tracer } });
    const sent = createThread('t1', [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] }], { title: 'Trip' });
    const events: Event[] = [];
    for await (const event of engine.streamChat({ thread: sent })) events.push(event);
    const { thread: full, ...lean } = events.at(-1) as ChatFinishEvent;
    expect(lean.metadata).toEqual({ title: 'Trip', [TRACE_METADATA_KEY]: { traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/) } });
    // What a server sends (no thread) folds onto the sent thread to the thread the engine reports.
    expect(threadAfterRun(sent, [...events.slice(0, -1), lean])).toEqual(full);

    const untraced: Event[] = [];
    for await (const event of createEngine({ model: fakeModel({ script: twoSteps }), tools: [weather], telemetry: false }).streamChat({ thread: sent })) untraced.push(event);
    expect(untraced.at(-1)).not.toHaveProperty('metadata');
  });

  it('records prompts, answers and tool input/output only with recordContent', async () => {
    const { tracer, spans } = memoryTracer();
    const engine = createEngine({ model: fakeModel({ script: twoSteps }), tools: [weather], system: 'Be brief.', telemetry: { tracer, recordContent: true } });
    await engine.chat({ prompt: 'Weather in Paris?' });
    const chats = byName(spans(), 'chat fake-model');
    const firstChat = chats.find((s) => s.attributes['parlance.step'] === 0)!;
    expect(JSON.parse(String(firstChat.attributes['gen_ai.system_instructions']))).toEqual([{ type: 'text', content: 'Be brief.' }]);
    expect(JSON.parse(String(firstChat.attributes['gen_ai.input.messages']))).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]);
    expect(JSON.parse(String(firstChat.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Let me look.' },
          { type: 'tool_call', id: 'c1', name: 'weather', arguments: { city: 'Paris' } },
        ],
        finish_reason: 'tool_call',
      },
    ]);
    const toolSpan = one(spans(), 'execute_tool weather');
    expect(JSON.parse(String(toolSpan.attributes['gen_ai.tool.call.arguments']))).toEqual({ city: 'Paris' });
    expect(JSON.parse(String(toolSpan.attributes['gen_ai.tool.call.result']))).toEqual({ city: 'Paris', tempC: 21 });
  });

  it('a provider error and a failing tool end their spans with error status and error.type (the message only with recordContent)', async () => {
    const { tracer, spans } = memoryTracer();
    const broken = tool({
      name: 'broken',
      input: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const model = fakeModel({
      script: [
        { toolCalls: [{ id: 'b1', name: 'broken', input: {} }] },
        { error: { code: 'overloaded', message: 'Try later', status: 529 } },
      ],
    });
    const result = await createEngine({ model, tools: [broken], telemetry: { tracer } }).chat({ prompt: 'go' });
    expect(result.haltReason).toBe('error');
    const all = spans();
    const toolSpan = one(all, 'execute_tool broken');
    expect(toolSpan.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Failed: Error' });
    expect(toolSpan.attributes['error.type']).toBe('Error');
    const failed = byName(all, 'chat fake-model').find((s) => s.attributes['parlance.step'] === 1)!;
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Failed: overloaded' });
    expect(failed.attributes['error.type']).toBe('overloaded');
    const root = one(all, 'invoke_agent');
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes).toMatchObject({ 'error.type': 'overloaded', 'parlance.halt_reason': 'error' });
  });

  it('a cancel mid-answer and mid-tool ends every span, marked cancelled', async () => {
    const { tracer, spans } = memoryTracer();
    const controller = new AbortController();
    const slow = tool({
      name: 'slow',
      input: z.object({}),
      // Ignores its signal on purpose: the span must end anyway.
      execute: () => new Promise(() => controller.abort()),
    });
    const model = fakeModel({ script: [{ toolCalls: [{ id: 's1', name: 'slow', input: {} }] }] });
    const engine = createEngine({ model, tools: [slow], telemetry: { tracer } });
    const result = await engine.chat({ prompt: 'go', signal: controller.signal });
    expect(result.haltReason).toBe('cancelled');
    const toolSpan = one(spans(), 'execute_tool slow');
    expect(toolSpan.status.code).toBe(SpanStatusCode.ERROR);
    expect(toolSpan.attributes['error.type']).toBe('AbortError');
    const root = one(spans(), 'invoke_agent');
    expect(root.attributes['parlance.halt_reason']).toBe('cancelled');

    // Cancelled while the model streams.
    const { tracer: tracer2, spans: spans2 } = memoryTracer();
    const streaming = new AbortController();
    const longModel = fakeModel({ script: [{ text: 'one two three four five six', delayMs: 20 }] });
    const events = createEngine({ model: longModel, telemetry: { tracer: tracer2 } }).streamChat({ prompt: 'talk', signal: streaming.signal });
    for await (const event of events) if (event.type === 'text-delta') streaming.abort();
    const chat = one(spans2(), 'chat fake-model');
    expect(chat.attributes['error.type']).toBe('cancelled');
    expect(one(spans2(), 'invoke_agent').attributes['parlance.halt_reason']).toBe('cancelled');
    expect(spans2().every((s) => s.ended)).toBe(true);
  });

  it('with no tracer registered the run is not instrumented and its events are unchanged', async () => {
    const script = twoSteps;
    const plain = await createEngine({ model: fakeModel({ script }), tools: [weather], telemetry: false, generateId: ids() }).chat({ prompt: 'x' });
    const noop = await createEngine({ model: fakeModel({ script }), tools: [weather], generateId: ids() }).chat({ prompt: 'x' });
    expect(noop).toEqual(plain);
    expect(noop.thread.metadata).toBeUndefined();

    // The globally registered provider is used when no tracer is passed.
    const { provider, spans } = memoryTracer();
    trace.setGlobalTracerProvider(provider);
    await createEngine({ model: fakeModel({ script }), tools: [weather] }).chat({ prompt: 'x' });
    expect(spans().map((s) => s.name).sort()).toEqual(['chat fake-model', 'chat fake-model', 'execute_tool weather', 'invoke_agent']);
  });

  it("joins the app's active span through the context manager the app registered (the engine imports no @opentelemetry/api)", async () => {
    // A context manager on AsyncLocalStorage, as @opentelemetry/context-async-hooks registers one.
    const storage = new AsyncLocalStorage<Context>();
    const manager: ContextManager = {
      active: () => storage.getStore() ?? ROOT_CONTEXT,
      with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
      bind: (_ctx, target) => target,
      enable() { return this; },
      disable() { storage.disable(); return this; },
    };
    otelContext.setGlobalContextManager(manager);
    try {
      const { provider, spans } = memoryTracer();
      trace.setGlobalTracerProvider(provider);
      let activeInTool: string | undefined;
      const probe = tool({ name: 'weather', input: z.object({ city: z.string() }), execute: () => {
          activeInTool = trace.getActiveSpan()?.spanContext().spanId;
          return { tempC: 21 };
        },
      });
      const request = provider.getTracer('app').startSpan('POST /api/chat');
      await otelContext.with(trace.setSpan(otelContext.active(), request), () => createEngine({ model: fakeModel({ script: twoSteps }), tools: [probe] }).chat({ prompt: 'x' }));
      request.end();
      const all = spans();
      expect(one(all, 'invoke_agent').parentSpanId).toBe(request.spanContext().spanId);
      expect(activeInTool).toBe(one(all, 'execute_tool weather').spanId);
    } finally {
      otelContext.disable();
    }
  });

  it('a session resumed in a new process links its run to the original trace', async () => {
    const { tracer, spans } = memoryTracer();
    const model = fakeModel({ script: [{ toolCalls: [{ name: 'delete_file', input: { path: '/tmp/a.txt' } }] }] });
    const session = ChatSession.create({ id: 'traced-session' });
    await session.send(createEngine({ model, tools: [deleteFile], telemetry: { tracer } }), 'Delete /tmp/a.txt');
    expect(session.status).toBe('awaiting-approval');
    const original = one(spans(), 'invoke_agent');
    expect(original.attributes['parlance.halt_reason']).toBe('approval');

    const file = join(mkdtempSync(join(tmpdir(), 'parlance-trace-')), 'session.json');
    writeFileSync(file, JSON.stringify(session));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/fixtures/resume-traced.ts', file], { cwd: join(import.meta.dirname, '../..') });
    const child = JSON.parse(stdout) as { haltReason: string; spans: SpanRecord[] };
    expect(child.haltReason).toBe('completed');
    const resumed = one(child.spans, 'invoke_agent');
    expect(resumed.traceId).not.toBe(original.traceId);
    expect(resumed.links).toEqual([{ traceId: original.traceId, spanId: original.spanId, attributes: { 'parlance.link.type': 'resume' } }]);
    expect(resumed.attributes['gen_ai.conversation.id']).toBe('traced-session');
    // The approved call ran in the new process, under the new run.
    expect(one(child.spans, 'execute_tool delete_file').parentSpanId).toBe(resumed.spanId);
  }, 30_000);

  it('a tool that asks the user ends its span as a pause, not an error', async () => {
    const { tracer, spans } = memoryTracer();
    const ask = tool({ name: 'ask', input: z.object({}), execute: (_input, { askUser }) => askUser('Which size?') });
    const model = fakeModel({ script: [{ toolCalls: [{ id: 'q', name: 'ask', input: {} }] }] });
    const result = await createEngine({ model, tools: [ask], telemetry: { tracer } }).chat({ prompt: 'order' });
    expect(result.haltReason).toBe('ask-user');
    const span = one(spans(), 'execute_tool ask');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes['parlance.tool.outcome']).toBe('ask-user');
  });

  it('ignores a malformed trace context in thread metadata (it may come from a browser)', async () => {
    const { tracer, spans } = memoryTracer();
    const thread = { version: 1 as const, id: 't', messages: [], metadata: { title: 'Trip', [TRACE_METADATA_KEY]: { traceparent: '00-zz-not-a-trace' } } };
    const result = await createEngine({ model: fakeModel({ script: [{ text: 'hi' }] }), telemetry: { tracer } }).chat({ thread, prompt: 'hello' });
    const root = one(spans(), 'invoke_agent');
    expect(root.links).toEqual([]);
    // The thread's own metadata survives the run; the trace entry now names this run.
    expect(result.thread.metadata).toEqual({ title: 'Trip', [TRACE_METADATA_KEY]: { traceparent: `00-${root.traceId}-${root.spanId}-01` } });
  });
});

function ids(): () => string {
  let n = 0;
  return () => `id-${++n}`;
}
