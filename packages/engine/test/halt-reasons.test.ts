import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { messageText, type Event } from '@parlance/protocol';
import { collect, tool } from '../src/index.ts';
import { drain, ofType, setup } from './helpers.ts';

const add = tool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

const callAdd = { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }], usage: { inputTokens: 10, outputTokens: 2 } };

function expectOneFinish(events: Event[]) {
  expect(ofType(events, 'chat-finish')).toHaveLength(1);
  expect(events.at(-1)?.type).toBe('chat-finish');
}

describe('halt reasons', () => {
  it('completed: a text answer ends the run', async () => {
    const { engine, model } = setup([{ text: 'Hello there', usage: { inputTokens: 5, outputTokens: 2 } }]);
    const events = await drain(engine.streamChat({ messages: [{ role: 'user', content: 'Hi' }] }));
    expectOneFinish(events);
    const result = await collect(events);
    expect(result.haltReason).toBe('completed');
    expect(result.usage).toEqual({ inputTokens: 5, outputTokens: 2 });
    expect(result.thread.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messageText(result.thread.messages[1]!)).toBe('Hello there');
    expect(model.requests).toHaveLength(1);
  });

  it('runs tools, sends their results back and completes; usage sums over steps', async () => {
    const { engine, model } = setup([callAdd, { text: 'It is 5', usage: { inputTokens: 20, outputTokens: 3 } }]);
    const result = await engine.chat({ prompt: 'What is 2 + 3?', tools: [add] });
    expect(result.haltReason).toBe('completed');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.toolResults).toEqual([{ type: 'tool-result', toolCallId: 'call_0_0', name: 'add', output: { sum: 5 } }]);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 5 });
    const second = model.requests[1]!;
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.messages[2]!.parts[0]).toMatchObject({ type: 'tool-result', output: { sum: 5 } });
    expect(model.requests[0]!.tools?.[0]).toMatchObject({ name: 'add', inputSchema: { type: 'object', required: ['a', 'b'] } });
  });

  it('max-steps: defaults to 8 model calls', async () => {
    const { engine, model } = setup([callAdd]);
    const result = await engine.chat({ prompt: 'loop', tools: [add] });
    expect(result.haltReason).toBe('max-steps');
    expect(model.requests).toHaveLength(8);
    expect(result.steps).toHaveLength(8);
  });

  it('max-steps: honours maxSteps from the call over the engine default', async () => {
    const { engine, model } = setup([callAdd], { maxSteps: 5 });
    const result = await engine.chat({ prompt: 'loop', tools: [add], maxSteps: 2 });
    expect(result.haltReason).toBe('max-steps');
    expect(model.requests).toHaveLength(2);
  });

  it('halt-when: a predicate on each step stops the run', async () => {
    const { engine, model } = setup([callAdd]);
    const result = await engine.chat({
      prompt: 'loop',
      tools: [add],
      haltWhen: (step) => step.toolResults.some((r) => r.name === 'add') && step.step === 1,
    });
    expect(result.haltReason).toBe('halt-when');
    expect(model.requests).toHaveLength(2);
  });

  it('client-tool-calls: a tool without execute halts with the pending call', async () => {
    const location = tool({ name: 'get_location', input: z.object({}) });
    const { engine } = setup([{ toolCalls: [{ name: 'get_location', input: {} }] }, { text: 'You are in Paris' }]);
    const result = await engine.chat({ prompt: 'Where am I?', tools: [location] });
    expect(result.haltReason).toBe('client-tool-calls');
    expect(result.pending).toEqual([{ toolCallId: 'call_0_0', name: 'get_location', input: {}, kind: 'client-tool' }]);
  });

  it('tool-error: a throwing handler halts when onToolError is "halt"', async () => {
    const broken = tool({ name: 'broken', input: z.object({}), execute: () => { throw new Error('disk full'); } });
    const { engine, model } = setup([{ toolCalls: [{ name: 'broken', input: {} }] }, { text: 'done' }]);
    const result = await engine.chat({ prompt: 'go', tools: [broken], onToolError: 'halt' });
    expect(result.haltReason).toBe('tool-error');
    expect(result.error?.code).toBe('tool_error');
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ isError: true, output: expect.stringContaining('disk full') });
    expect(model.requests).toHaveLength(1);
  });

  it('length: a truncated response halts', async () => {
    const { engine } = setup([{ text: 'Once upon a', finishReason: 'length' }]);
    const result = await engine.chat({ prompt: 'story' });
    expect(result.haltReason).toBe('length');
    expect(messageText(result.thread.messages[1]!)).toBe('Once upon a');
  });

  it('content-filter: a filtered response halts (refusals too)', async () => {
    const { engine } = setup([{ text: 'I cannot', finishReason: 'content-filter' }]);
    expect((await engine.chat({ prompt: 'x' })).haltReason).toBe('content-filter');
    const refusal = setup([{ text: 'No', finishReason: 'refusal' }]);
    expect((await refusal.engine.chat({ prompt: 'x' })).haltReason).toBe('content-filter');
  });

  it('error: a failed model call halts with the error and keeps what arrived', async () => {
    const { engine } = setup([{ text: 'partial answer here', error: { code: 'overloaded', message: 'busy', afterEvents: 3 } }]);
    const events = await drain(engine.streamChat({ prompt: 'x' }));
    expectOneFinish(events);
    const result = await collect(events);
    expect(result.haltReason).toBe('error');
    expect(result.error).toEqual({ code: 'overloaded', message: 'busy' });
    expect(messageText(result.thread.messages[1]!)).toBe('partial ');
  });

  it('error: an HTTP error before any byte halts with its code', async () => {
    const { engine } = setup([{ error: { code: 'authentication', message: 'bad key', status: 401 } }]);
    const result = await engine.chat({ prompt: 'x' });
    expect(result.haltReason).toBe('error');
    expect(result.error?.code).toBe('authentication');
  });

  it('error: a stream that ends without finish is an invalid_response', async () => {
    const model = {
      provider: 'p',
      modelId: 'm',
      dialect: 'd',
      async *stream() {
        yield { type: 'text-delta', id: 't', delta: 'cut' } as Event;
      },
    };
    const { engine } = setup([{ text: 'unused' }]);
    const result = await engine.chat({ prompt: 'x', model });
    expect(result.haltReason).toBe('error');
    expect(result.error?.code).toBe('invalid_response');
    expect(messageText(result.thread.messages[1]!)).toBe('cut');
  });

  it('error: a model that throws (breaking its contract) still ends with one chat-finish', async () => {
    const model = {
      provider: 'p',
      modelId: 'm',
      dialect: 'd',
      // biome-ignore lint/correctness/useYield: it throws before yielding on purpose.
      async *stream(): AsyncGenerator<Event> {
        throw new Error('socket hang up');
      },
    };
    const { engine } = setup([{ text: 'unused' }]);
    const events = await drain(engine.streamChat({ prompt: 'x', model }));
    expectOneFinish(events);
    expect((await collect(events)).haltReason).toBe('error');
  });

  it('cancelled: an abort before the start ends with one chat-finish', async () => {
    const { engine, model } = setup([{ text: 'never' }]);
    const controller = new AbortController();
    controller.abort();
    const events = await drain(engine.streamChat({ prompt: 'x', signal: controller.signal }));
    expectOneFinish(events);
    expect((await collect(events)).haltReason).toBe('cancelled');
    expect(model.requests.length).toBeLessThanOrEqual(1);
  });
});
