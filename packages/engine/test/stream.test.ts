import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFoldState, createThread, messageText, reduceEvents, type Event } from '@parlance/protocol';
import { fakeModel } from '@parlance/testing';
import { collect, createEngine, tool } from '../src/index.ts';
import { counterIds, drain, ofType, setup } from './helpers.ts';

const weather = tool({
  name: 'weather',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temperature: 21 }),
});
const script = [
  { reasoning: 'Need the weather', toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }], usage: { inputTokens: 12, outputTokens: 4 } },
  { text: 'It is 21 degrees in Oslo.', usage: { inputTokens: 30, outputTokens: 8 } },
];

describe('events and results', () => {
  it('chat and streamChat + collect give the same ChatResult', async () => {
    const a = setup(script);
    const b = setup(script);
    const chat = await a.engine.chat({ prompt: 'Weather in Oslo?', tools: [weather], thread: createThread('t1') });
    const streamed = await collect(b.engine.streamChat({ prompt: 'Weather in Oslo?', tools: [weather], thread: createThread('t1') }));
    expect(streamed).toEqual(chat);
    expect(chat.haltReason).toBe('completed');
  });

  it('the thread in chat-finish is the fold of the events onto the input thread', async () => {
    const { engine } = setup(script);
    const input = createThread('t1', [{ id: 'sys', role: 'system', parts: [{ type: 'text', text: 'Be brief' }] }]);
    const user = { id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'Weather?' }] };
    const events = await drain(engine.streamChat({ thread: input, messages: [user], tools: [weather] }));
    const finish = ofType(events, 'chat-finish')[0]!;
    let state = createFoldState([...input.messages, user]);
    for (const event of events) state = reduceEvents(state, event);
    expect(finish.thread?.messages).toEqual(state.messages);
    expect(finish.thread?.id).toBe('t1');
    expect(finish.usage).toEqual({ inputTokens: 42, outputTokens: 12 });
  });

  it('frames model events with step-start, message-start (engine ids), tool-result and step-finish', async () => {
    const { engine } = setup(script);
    const events = await drain(engine.streamChat({ prompt: 'Weather?', tools: [weather] }));
    const outline = events.filter((e) => !e.type.endsWith('-delta') && !e.type.startsWith('reasoning') && !e.type.startsWith('text'));
    expect(outline.map((e) => e.type)).toEqual([
      'step-start',
      'message-start',
      'tool-call-start',
      'tool-call-end',
      'usage',
      'finish',
      'tool-result',
      'step-finish',
      'step-start',
      'message-start',
      'usage',
      'finish',
      'step-finish',
      'chat-finish',
    ]);
    // ids: id-1 user message, id-2 thread, id-3 first response, id-4 tool message, id-5 second response.
    const starts = ofType(events, 'message-start');
    expect(starts.map((s) => s.messageId)).toEqual(['id-3', 'id-5']);
    expect(starts[0]!.provenance).toEqual({ provider: 'fake', model: 'fake-model', dialect: 'fake' });
    expect(ofType(events, 'tool-result')[0]!.messageId).toBe('id-4');
    const thread = ofType(events, 'chat-finish')[0]!.thread!;
    expect(thread.messages.map((m) => m.id)).toEqual(['id-1', 'id-3', 'id-4', 'id-5']);
  });

  it('onEvent sees every event and onFinish the result', async () => {
    const seen: Event['type'][] = [];
    let finished: unknown;
    const { engine } = setup(script);
    const result = await engine.chat({
      prompt: 'Weather?',
      tools: [weather],
      onEvent: (e) => seen.push(e.type),
      onFinish: (r) => {
        finished = r.haltReason;
      },
    });
    expect(seen.at(-1)).toBe('chat-finish');
    expect(seen.filter((t) => t === 'step-start')).toHaveLength(2);
    expect(finished).toBe(result.haltReason);
  });

  it('a throwing hook ends the run with error and exactly one chat-finish', async () => {
    for (const hooks of [
      { beforeRequest: () => { throw new Error('no'); } },
      { onEvent: (e: Event) => { if (e.type === 'tool-result') throw new Error('no'); } },
      { beforeToolCall: () => { throw new Error('no'); } },
      { onFinish: () => { throw new Error('no'); } },
    ]) {
      const { engine } = setup(script);
      const events: Event[] = [];
      for await (const e of engine.streamChat({ prompt: 'Weather?', tools: [weather], ...hooks })) events.push(e);
      const finishes = ofType(events, 'chat-finish');
      expect(finishes).toHaveLength(1);
      expect(finishes[0]!.haltReason).toBe('error');
      expect(finishes[0]!.error?.message).toMatch(/hook threw: no/);
    }
  });

  it('beforeRequest may replace the request', async () => {
    const { engine, model } = setup([{ text: 'ok' }]);
    await engine.chat({ prompt: 'x', beforeRequest: (request) => ({ ...request, temperature: 0.1 }) });
    expect(model.requests[0]!.temperature).toBe(0.1);
  });
});

describe('abort', () => {
  it('in the middle of a stream: one chat-finish cancelled, partial text kept', async () => {
    const { engine, model } = setup([{ text: ['Once ', 'upon ', 'a ', 'time'], delayMs: 20 }]);
    const controller = new AbortController();
    const events: Event[] = [];
    for await (const event of engine.streamChat({ prompt: 'story', signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta' && event.delta === 'upon ') controller.abort();
    }
    const finishes = ofType(events, 'chat-finish');
    expect(finishes).toHaveLength(1);
    expect(finishes[0]!.haltReason).toBe('cancelled');
    expect(messageText(finishes[0]!.thread!.messages[1]!)).toBe('Once upon ');
    expect(model.callOptions[0]!.signal?.aborted).toBe(true);
  });

  it('in the middle of a tool: the tool sees the abort, one chat-finish cancelled', async () => {
    let toolSignal: AbortSignal | undefined;
    const controller = new AbortController();
    const wait = tool({
      name: 'wait',
      input: z.object({}),
      execute: (_input, { signal }) => {
        toolSignal = signal;
        setTimeout(() => controller.abort(), 10);
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve('late')));
      },
    });
    const { engine, model } = setup([{ text: 'Let me wait', toolCalls: [{ name: 'wait', input: {} }] }, { text: 'never' }]);
    const events = await drain(engine.streamChat({ prompt: 'wait', tools: [wait], signal: controller.signal }));
    const result = await collect(events);
    expect(ofType(events, 'chat-finish')).toHaveLength(1);
    expect(result.haltReason).toBe('cancelled');
    expect(toolSignal?.aborted).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(messageText(result.thread.messages[1]!)).toBe('Let me wait');
    // The unfinished call stays owed: resuming the thread runs it again.
    expect(ofType(events, 'tool-result')).toHaveLength(0);
  });

  it('a reader that stops early aborts the model call', async () => {
    const { engine, model } = setup([{ text: 'a b c d e f', delayMs: 10 }]);
    for await (const event of engine.streamChat({ prompt: 'x' })) if (event.type === 'text-delta') break;
    expect(model.callOptions[0]!.signal?.aborted).toBe(true);
  });
});

describe('options', () => {
  it('rejects unknown options with a clear error', async () => {
    const model = fakeModel({ script: [{ text: 'x' }] });
    expect(() => createEngine({ model, temprature: 1 } as never)).toThrow(/Unknown option "temprature"/);
    const engine = createEngine({ model });
    await expect(engine.chat({ prompt: 'x', maxTokens: 5 } as never)).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('"extra"'),
    });
    expect(() => engine.streamChat({ prompt: 'x', foo: 1 } as never)).toThrow(/Unknown option "foo"/);
  });

  it('call values beat engine defaults, which beat library defaults; extra merges', async () => {
    const model = fakeModel({ script: [{ text: 'x' }] });
    const engine = createEngine({ model, temperature: 0.5, system: 'engine system', extra: { a: 1, b: 1 }, generateId: counterIds() });
    await engine.chat({ prompt: 'x', temperature: 0.9, extra: { b: 2 } });
    expect(model.requests[0]).toMatchObject({ temperature: 0.9, system: 'engine system', extra: { a: 1, b: 2 } });
    expect(model.requests[0]!.topP).toBeUndefined();
  });

  it('resolves model strings through the injected resolver', async () => {
    const model = fakeModel({ script: [{ text: 'resolved' }] });
    const specs: string[] = [];
    const engine = createEngine({ resolveModel: (spec) => {
        specs.push(spec);
        return model;
      }, env: { KEY: 'k' } });
    const result = await engine.chat({ model: 'fake:small', prompt: 'x' });
    expect(specs).toEqual(['fake:small']);
    expect(messageText(result.thread.messages[1]!)).toBe('resolved');
  });

  it('requires a model', async () => {
    await expect(createEngine().chat({ prompt: 'x' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('generate and step', () => {
  it('generate folds one model call into a Response; tools are offered, not run', async () => {
    const { engine, model } = setup([{ text: 'hi', toolCalls: [{ name: 'weather', input: { city: 'Rome' } }] }]);
    const response = await engine.generate({ prompt: 'x', tools: [weather] });
    expect(response.finishReason).toBe('tool-calls');
    expect(response.message.id).toBe('id-3'); // id-1: the prompt's message, id-2: the thread
    expect(response.message.parts.map((p) => p.type)).toEqual(['text', 'tool-call']);
    expect(model.requests).toHaveLength(1);
  });

  it('step runs one call and its tools, then halts with max-steps', async () => {
    const { engine, model } = setup(script);
    const result = await engine.step({ prompt: 'Weather?', tools: [weather] });
    expect(result.haltReason).toBe('max-steps');
    expect(result.toolResults).toEqual([{ type: 'tool-result', toolCallId: 'call_0_0', name: 'weather', output: { city: 'Oslo', temperature: 21 } }]);
    expect(result.response?.finishReason).toBe('tool-calls');
    expect(model.requests).toHaveLength(1);
    const next = await engine.step({ thread: result.thread, tools: [weather] });
    expect(next.haltReason).toBe('completed');
    expect(messageText(next.response!.message)).toBe('It is 21 degrees in Oslo.');
  });
});
