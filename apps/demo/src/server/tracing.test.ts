// Tracing through the whole demo stack with a tracer provider registered globally (as an app would):
// the browser-side ChatStore holds the thread, approves a paused call, and the run that resumes it
// on the server links to the run that paused, through the thread's metadata.
import { trace } from '@opentelemetry/api';
import { ChatStore } from '@parlance/client';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { createDemoApi } from './api.ts';

describe('the demo API traced', () => {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  afterAll(() => trace.disable());

  it('an approval resumed by the browser links the resumed run to the paused one', async () => {
    const api = createDemoApi({ env: {}, delayScale: 0, ollama: false, secret: 'a-signing-secret-for-the-tracing-test' });
    const fetch: typeof globalThis.fetch = async (input, init) => api.app.request(input instanceof Request ? input : String(input), init);
    let n = 0;
    const chat = new ChatStore({ api: 'http://demo.local/api', fetch, threadId: 't1', model: 'demo:mock', retryDelayMs: 0, generateId: () => `id${++n}` });
    await chat.send('weather in Oslo');
    expect(chat.getSnapshot().haltReason).toBe('approval');
    const done = new Promise<void>((resolve) => {
      const stop = chat.subscribe(() => {
        if (chat.getSnapshot().status === 'ready' && chat.getSnapshot().haltReason === 'completed') {
          stop();
          resolve();
        }
      });
    });
    void chat.approve(chat.getSnapshot().pending[0]!.toolCallId);
    await done;

    const runs = exporter.getFinishedSpans().filter((s) => s.name === 'invoke_agent');
    expect(runs.map((r) => r.attributes['parlance.halt_reason'])).toEqual(['approval', 'completed']);
    const [paused, resumed] = runs;
    expect(resumed!.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes?.['parlance.link.type']])).toEqual([
      [paused!.spanContext().traceId, paused!.spanContext().spanId, 'resume'],
    ]);
    // The approved call ran under the resumed run; the model calls carry the demo's made-up prices as cost.
    const weather = exporter.getFinishedSpans().find((s) => s.name === 'execute_tool get_weather')!;
    expect(weather.parentSpanContext?.spanId).toBe(resumed!.spanContext().spanId);
    const chats = exporter.getFinishedSpans().filter((s) => s.name === 'chat mock');
    expect(chats.length).toBe(2);
    for (const span of chats) {
      expect(span.attributes['gen_ai.provider.name']).toBe('demo');
      expect(span.attributes['parlance.usage.cost']).toBeGreaterThan(0);
    }
  }, 30_000);
});
