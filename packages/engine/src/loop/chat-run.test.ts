/**
 * The loop's phases, each alone: a ChatRun built on a scripted model, one phase called, its
 * events and its answer checked (the whole loop is tested through the engine in test/).
 */
import type { Event, LanguageModel, Message, Response, ToolCallPart } from '@parlance/protocol';
import { fakeModel, type Script } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveSchema } from '../tools/schema.ts';
import { type AnyTool, tool } from '../tools/tool.ts';
import { ABORTED } from './abortable.ts';
import { ChatRun, RETRY } from './chat-run.ts';
import { Halt } from './halt.ts';
import type { RunConfig } from './run-config.ts';

const user: Message[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }];

function runOf(script: Script, overrides: Partial<RunConfig> = {}, tools: AnyTool[] = [], watch?: (event: Event, controller: AbortController) => void) {
  const events: Event[] = [];
  let n = 0;
  const controller = new AbortController();
  const config: RunConfig = {
    model: fakeModel({ script }),
    threadId: 't1',
    messages: user,
    base: {},
    tools: new Map(tools.map((t) => [t.definition.name, t])),
    hooks: {},
    maxSteps: 5,
    maxRetries: 1,
    toolTimeoutMs: 1000,
    onToolError: 'continue',
    resume: new Map(),
    generateId: () => `id-${++n}`,
    ...overrides,
  };
  const output = (event: Event) => {
    events.push(event);
    watch?.(event, controller);
  };
  return { run: new ChatRun(config, controller.signal, output), events, controller, types: () => events.map((e) => e.type) };
}

const call = (name: string, input: unknown, id = 'c1'): ToolCallPart => ({ type: 'tool-call', id, name, input });

const add = tool({ name: 'add', description: 'Adds', input: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });
const transfer = tool({ name: 'transfer', description: 'Moves money', input: z.object({ amount: z.number() }), needsApproval: true, execute: () => 'done' });
const broken = tool({ name: 'broken', description: 'Fails', input: z.object({}), execute: () => {
  throw new Error('disk full');
} });

describe('call the model', () => {
  it('streams one step into events and answers its response', async () => {
    const { run, types } = runOf([{ text: 'Hello there', usage: { inputTokens: 3, outputTokens: 2 } }]);
    const response = (await run.callModel(0)) as Response;
    expect(response.finishReason).toBe('stop');
    expect(types()[0]).toBe('message-start');
    expect(types().at(-1)).toBe('finish');
  });

  it('turns a model that fails mid-stream into an error and a finish, keeping what arrived', async () => {
    const { run, events } = runOf([{ text: 'Hel', error: { code: 'overloaded', message: 'busy', afterEvents: 2 } }]);
    const response = (await run.callModel(0)) as Response;
    expect(response.finishReason).toBe('error');
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'overloaded' });
  });

  it('answers ABORTED once the run is cancelled', async () => {
    const { run, controller } = runOf([{ text: 'slow words here', delayMs: 20 }]);
    const pending = run.callModel(0);
    controller.abort();
    expect(await pending).toBe(ABORTED);
  });

  it('ends every response with one finish holding the usage it reported, however it ends (the whole family)', async () => {
    const reported = { inputTokens: 18, outputTokens: 1 };
    /** A model that reports its input count first (as Anthropic and Gemini do), writes a word, then ends with `tail`. */
    const modelEnding = (tail: Event[], thrown?: Error): LanguageModel => ({
      provider: 'p',
      modelId: 'm',
      dialect: 'fake',
      async *stream() {
        yield { type: 'message-start' };
        yield { type: 'usage', usage: reported };
        yield { type: 'text-delta', id: 't', delta: 'a' };
        yield* tail;
        if (thrown) throw thrown;
      },
    });
    const ends = [
      { name: 'stopped by the reader', model: fakeModel({ script: [{ text: ['a', 'b', 'c'], startUsage: reported, usage: { inputTokens: 18, outputTokens: 9 } }] }), stop: true, reason: 'cancelled' },
      { name: "the model's own empty-usage error finish", model: modelEnding([{ type: 'error', code: 'network', message: 'reset', retryable: true }, { type: 'finish', finishReason: 'error', usage: {} }]), reason: 'error' },
      { name: 'the model throws', model: modelEnding([], new Error('socket hang up')), reason: 'error' },
      { name: 'the stream ends without a finish', model: modelEnding([]), reason: 'error' },
    ];
    for (const { name, model, stop, reason } of ends) {
      // Stop as the first word arrives (no clock): the reader pressed Stop.
      const { run, events } = runOf([], { model }, [], (event, controller) => {
        if (stop && event.type === 'text-delta') controller.abort();
      });
      const halt = await run.loop();
      expect(halt.reason, name).toBe(reason);
      expect(events.filter((e) => e.type === 'finish'), name).toEqual([expect.objectContaining({ finishReason: reason, usage: reported })]);
      expect(events.find((e) => e.type === 'step-finish'), name).toMatchObject({ usage: reported });
    }
  });

  it('lets beforeRequest replace the request', async () => {
    const model = fakeModel({ script: [{ text: 'ok' }] });
    const { run } = runOf([], { model, hooks: { beforeRequest: (request) => ({ ...request, temperature: 0.25 }) } });
    await run.callModel(0);
    expect(model.requests[0]!.temperature).toBe(0.25);
  });
});

describe('settle tool calls', () => {
  it('runs the calls and reports their results in call order, going on', async () => {
    const { run, events } = runOf([], {}, [add]);
    expect(await run.settleToolCalls([call('add', { a: 1, b: 2 }, 'c1'), call('add', { a: 3, b: 4 }, 'c2')], new Map())).toBeUndefined();
    expect(events.filter((e) => e.type === 'tool-result').map((e) => (e as { output: unknown }).output)).toEqual([3, 7]);
  });

  it('sends each result as soon as it and the calls before it are settled (a run store records it while later calls still run)', async () => {
    const gates = new Map<string, () => void>();
    const started: string[] = [];
    const slow = tool({
      name: 'slow',
      input: z.object({}),
      execute: (_input, { toolCallId }) =>
        new Promise<string>((resolve) => {
          started.push(toolCallId);
          gates.set(toolCallId, () => resolve(`done ${toolCallId}`));
        }),
    });
    const { run, events } = runOf([], {}, [slow]);
    const results = () => events.filter((e) => e.type === 'tool-result').map((e) => (e as { toolCallId: string }).toolCallId);
    const settling = run.settleToolCalls([call('slow', {}, 'c1'), call('slow', {}, 'c2'), call('slow', {}, 'c3')], new Map());
    while (started.length < 3) await new Promise((r) => setImmediate(r));
    gates.get('c2')!(); // c2 is done, but c1 is not: nothing goes out (call order)
    await new Promise((r) => setImmediate(r));
    expect(results()).toEqual([]);
    gates.get('c1')!();
    while (results().length < 2) await new Promise((r) => setImmediate(r));
    expect(results()).toEqual(['c1', 'c2']); // out while c3 still runs
    gates.get('c3')!();
    expect(await settling).toBeUndefined();
    expect(results()).toEqual(['c1', 'c2', 'c3']);
  });

  it('pauses for an approval, asking for it and recording the pause', async () => {
    const { run, types } = runOf([], {}, [transfer]);
    const halt = await run.settleToolCalls([call('transfer', { amount: 5 })], new Map());
    expect(halt).toEqual(new Halt('approval'));
    expect(types()).toEqual(['approval-requested', 'run-paused']);
  });

  it('halts on a failed tool when onToolError says so, and goes on when it does not', async () => {
    const halting = runOf([], { onToolError: 'halt' }, [broken]);
    expect(await halting.run.settleToolCalls([call('broken', {})], new Map())).toMatchObject({ reason: 'tool-error', error: { code: 'tool_error' } });
    const going = runOf([], { onToolError: 'continue' }, [broken]);
    expect(await going.run.settleToolCalls([call('broken', {})], new Map())).toBeUndefined();
    expect(going.events.find((e) => e.type === 'tool-result')).toMatchObject({ isError: true });
  });
});

describe('pause', () => {
  it('does nothing when nothing is owed', () => {
    const { run, events } = runOf([]);
    expect(run.pause([])).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('records what the run waits for and halts for the first kind that needs a person', () => {
    const { run, events } = runOf([]);
    const halt = run.pause([
      { kind: 'client-tool', toolCallId: 'a', name: 'pick' },
      { kind: 'ask-user', toolCallId: 'b', name: 'ask', question: 'Which?' },
    ]);
    expect(halt?.reason).toBe('ask-user');
    expect(events).toEqual([{ type: 'run-paused', waitingFor: expect.arrayContaining([expect.objectContaining({ kind: 'ask-user' })]) }]);
  });
});

describe('validate output', () => {
  const output = { schema: resolveSchema(z.object({ city: z.string() }), 'output'), mode: 'native' as const };

  async function answered(text: string) {
    const fixture = runOf([{ text: [text] }], { output, maxRetries: 1 });
    const response = (await fixture.run.callModel(0)) as Response;
    return { ...fixture, response };
  }

  it('completes with the object when the text matches the schema', async () => {
    const { run, response, events } = await answered('{"city":"Oslo"}');
    expect(await run.validateOutput(0, response, undefined)).toEqual(new Halt('completed'));
    expect(events.filter((e) => e.type === 'object-delta').at(-1)).toEqual({ type: 'object-delta', object: { city: 'Oslo' } });
    expect(events.at(-1)?.type).toBe('step-finish');
  });

  it('gives the model another try with the reason, then fails after maxRetries', async () => {
    const { run, response } = await answered('{"town":"Oslo"}');
    expect(await run.validateOutput(0, response, undefined)).toBe(RETRY);
    expect(run.requestForStep().messages.at(-1)).toMatchObject({ role: 'user' });
    expect(await run.validateOutput(1, response, undefined)).toMatchObject({ reason: 'error', error: { code: 'invalid_response' } });
  });
});

describe('decide whether to go on', () => {
  const stop = { finishReason: 'stop' } as Response;
  const tools = { finishReason: 'tool-calls' } as Response;

  it('completes on an answer without tool calls, goes on after tool calls', async () => {
    const { run } = runOf([]);
    expect(await run.decideNext(stop, 0)).toEqual(new Halt('completed'));
    expect(await run.decideNext(tools, 1)).toBeUndefined();
  });

  it('stops when haltWhen says so after a step', async () => {
    const { run } = runOf([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }], { haltWhen: () => true }, [add]);
    const response = (await run.callModel(0)) as Response;
    expect(await run.decideNext(response, 1)).toEqual(new Halt('halt-when'));
  });
});

describe('finish', () => {
  it('sends exactly one chat-finish with the thread, even when onEvent throws', async () => {
    const { run, events } = runOf([], { hooks: { onEvent: () => {
      throw new Error('listener broke');
    } } });
    await run.finish(new Halt('completed'));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'chat-finish', haltReason: 'completed', thread: { id: 't1', messages: user } });
  });
});
