import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { ParlanceError, messageText, type ToolResultPart } from '@parlance/protocol';
import { collect, tool } from '../src/index.ts';
import { drain, ofType, setup } from './helpers.ts';

function resultsSent(request: { messages: { role: string; parts: unknown[] }[] }): ToolResultPart[] {
  return request.messages.flatMap((m) => m.parts).filter((p): p is ToolResultPart => (p as { type: string }).type === 'tool-result');
}

describe('approvals', () => {
  const execute = vi.fn(({ path }: { path: string }) => `deleted ${path}`);
  const remove = tool({ name: 'delete_file', input: z.object({ path: z.string() }), needsApproval: true, execute });
  const script = [{ toolCalls: [{ name: 'delete_file', input: { path: '/tmp/a' } }] }, { text: 'Done.' }];

  it('halts with approval-requested; approve runs the tool and the loop goes on', async () => {
    execute.mockClear();
    const { engine, model } = setup(script);
    const first = await drain(engine.streamChat({ prompt: 'Delete /tmp/a', tools: [remove] }));
    const halted = await collect(first);
    expect(halted.haltReason).toBe('approval');
    expect(ofType(first, 'approval-requested')).toEqual([
      { type: 'approval-requested', toolCallId: 'call_0_0', name: 'delete_file', input: { path: '/tmp/a' } },
    ]);
    expect(halted.pending).toEqual([{ toolCallId: 'call_0_0', name: 'delete_file', input: { path: '/tmp/a' }, kind: 'approval' }]);
    expect(execute).not.toHaveBeenCalled();

    const resumed = await engine.chat({ thread: halted.thread, tools: [remove], resume: { approvals: [{ toolCallId: 'call_0_0', approved: true }] } });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(resumed.haltReason).toBe('completed');
    expect(resultsSent(model.requests[1]!)).toEqual([{ type: 'tool-result', toolCallId: 'call_0_0', name: 'delete_file', output: 'deleted /tmp/a' }]);
    expect(resumed.thread.id).toBe(halted.thread.id);
  });

  it('deny sends a denied error result to the model; the handler never runs', async () => {
    execute.mockClear();
    const { engine, model } = setup(script);
    const halted = await engine.chat({ prompt: 'Delete /tmp/a', tools: [remove] });
    const resumed = await engine.chat({
      thread: halted.thread,
      tools: [remove],
      resume: { approvals: [{ toolCallId: 'call_0_0', approved: false, reason: 'not today' }] },
    });
    expect(execute).not.toHaveBeenCalled();
    expect(resumed.haltReason).toBe('completed');
    const [denied] = resultsSent(model.requests[1]!);
    expect(denied).toMatchObject({ toolCallId: 'call_0_0', isError: true });
    expect(String(denied!.output)).toContain('not today');
  });

  it('needsApproval as a predicate asks only for matching inputs', async () => {
    const guarded = tool({
      name: 'pay',
      input: z.object({ amount: z.number() }),
      needsApproval: ({ amount }) => amount > 100,
      execute: ({ amount }) => `paid ${amount}`,
    });
    const small = setup([{ toolCalls: [{ name: 'pay', input: { amount: 5 } }] }, { text: 'ok' }]);
    expect((await small.engine.chat({ prompt: 'pay', tools: [guarded] })).haltReason).toBe('completed');
    const large = setup([{ toolCalls: [{ name: 'pay', input: { amount: 500 } }] }, { text: 'ok' }]);
    expect((await large.engine.chat({ prompt: 'pay', tools: [guarded] })).haltReason).toBe('approval');
  });

  it('rejects a resume that names no pending call', async () => {
    const { engine } = setup([{ text: 'hi' }]);
    await expect(engine.chat({ prompt: 'x', resume: { approvals: [{ toolCallId: 'nope', approved: true }] } })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('ask-user', () => {
  it('halts with the question; the answer becomes the tool result', async () => {
    let runs = 0;
    const book = tool({
      name: 'book_table',
      input: z.object({ restaurant: z.string() }),
      execute: async (_input, { askUser }) => {
        runs++;
        await askUser('For how many people?');
        return 'unreachable';
      },
    });
    const { engine, model } = setup([{ toolCalls: [{ name: 'book_table', input: { restaurant: 'Chez Nous' } }] }, { text: 'Booked for 4.' }]);
    const events = await drain(engine.streamChat({ prompt: 'Book Chez Nous', tools: [book] }));
    const halted = await collect(events);
    expect(halted.haltReason).toBe('ask-user');
    expect(ofType(events, 'ask-user')).toEqual([{ type: 'ask-user', toolCallId: 'call_0_0', question: 'For how many people?' }]);
    expect(halted.pending).toEqual([
      { toolCallId: 'call_0_0', name: 'book_table', input: { restaurant: 'Chez Nous' }, kind: 'ask-user', question: 'For how many people?' },
    ]);
    const resumed = await engine.chat({ thread: halted.thread, tools: [book], resume: { answers: [{ toolCallId: 'call_0_0', answer: '4' }] } });
    expect(resumed.haltReason).toBe('completed');
    expect(runs).toBe(1);
    expect(resultsSent(model.requests[1]!)).toEqual([{ type: 'tool-result', toolCallId: 'call_0_0', name: 'book_table', output: '4' }]);
  });
});

describe('client tools', () => {
  it('resumes with the result the caller supplies, derived from the thread alone', async () => {
    const location = tool({ name: 'get_location', description: 'Browser geolocation', input: z.object({}) });
    const { engine, model } = setup([{ toolCalls: [{ name: 'get_location', input: {} }] }, { text: 'You are in Paris' }]);
    const halted = await engine.chat({ prompt: 'Where am I?', tools: [location] });
    // A stateless server: only the JSON thread travels.
    const thread = JSON.parse(JSON.stringify(halted.thread));
    const resumed = await engine.chat({ thread, tools: [location], resume: { toolResults: [{ toolCallId: 'call_0_0', output: { city: 'Paris' } }] } });
    expect(resumed.haltReason).toBe('completed');
    expect(messageText(resumed.thread.messages.at(-1)!)).toBe('You are in Paris');
    expect(resultsSent(model.requests[1]!)).toEqual([{ type: 'tool-result', toolCallId: 'call_0_0', name: 'get_location', output: { city: 'Paris' } }]);
  });

  it('a conversation continued past a pending call never sends a call without a result', async () => {
    const location = tool({ name: 'get_location', input: z.object({}) });
    const { engine, model } = setup([{ toolCalls: [{ name: 'get_location', input: {} }] }, { text: 'Sure' }]);
    const halted = await engine.chat({ prompt: 'Where am I?', tools: [location] });
    await engine.chat({ thread: halted.thread, prompt: 'Never mind, say hi', tools: [location] });
    const sent = model.requests[1]!.messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(resultsSent(model.requests[1]!)[0]).toMatchObject({ toolCallId: 'call_0_0', isError: true });
  });
});

describe('tool execution', () => {
  it('runs the calls of a step in parallel, keeps call order, and times out one', async () => {
    let releaseFast!: () => void;
    const fastStarted = new Promise<void>((resolve) => (releaseFast = resolve));
    // `slow` waits for `fast` to start: sequential execution would deadlock into the timeout of both.
    const slow = tool({
      name: 'slow',
      input: z.object({}),
      execute: async () => {
        await fastStarted;
        return 'slow done';
      },
    });
    const fast = tool({
      name: 'fast',
      input: z.object({}),
      execute: () => {
        releaseFast();
        return 'fast done';
      },
    });
    let hangSignal: AbortSignal | undefined;
    const hang = tool({
      name: 'hang',
      input: z.object({}),
      timeoutMs: 30,
      execute: (_input, { signal }) => {
        hangSignal = signal;
        return new Promise(() => {});
      },
    });
    const { engine, model } = setup([
      { toolCalls: [{ name: 'slow', input: {} }, { name: 'hang', input: {} }, { name: 'fast', input: {} }] },
      { text: 'ok' },
    ]);
    const result = await engine.chat({ prompt: 'go', tools: [slow, hang, fast], toolTimeoutMs: 2000 });
    expect(result.haltReason).toBe('completed');
    const results = result.steps[0]!.toolResults;
    expect(results.map((r) => r.name)).toEqual(['slow', 'hang', 'fast']);
    expect(results[0]).toMatchObject({ output: 'slow done' });
    expect(results[1]).toMatchObject({ isError: true, output: expect.stringContaining('timed out after 30 ms') });
    expect(results[2]).toMatchObject({ output: 'fast done' });
    expect(hangSignal?.aborted).toBe(true);
    expect(resultsSent(model.requests[1]!)).toHaveLength(3);
  });

  it('unknown tool, invalid JSON and schema failures become error results; the handler never runs', async () => {
    const execute = vi.fn(() => 'ran');
    const add = tool({ name: 'add', input: z.object({ a: z.number() }), execute });
    const { engine } = setup([
      {
        toolCalls: [
          { name: 'nope', input: {} },
          { name: 'add', input: '{"a": 1,' },
          { name: 'add', input: { a: 'one' } },
        ],
      },
      { text: 'sorry' },
    ]);
    const result = await engine.chat({ prompt: 'go', tools: [add] });
    const [unknown, badJson, badSchema] = result.steps[0]!.toolResults;
    expect(unknown).toMatchObject({ isError: true, output: 'This tool is not available.' });
    // Lists nothing: the result may reach a browser.
    expect(unknown!.output).not.toMatch(/add/);
    expect(badJson).toMatchObject({ isError: true, output: expect.stringContaining('not valid JSON') });
    expect(badSchema).toMatchObject({ isError: true, output: expect.stringContaining('a:') });
    expect(execute).not.toHaveBeenCalled();
    expect(result.haltReason).toBe('completed');
  });

  it('a throwing handler gets an error result and the loop continues by default; a policy function decides', async () => {
    const broken = tool({ name: 'broken', input: z.object({}), execute: () => { throw new Error('boom'); } });
    const script = [{ toolCalls: [{ name: 'broken', input: {} }] }, { text: 'recovered' }];
    const continued = await setup(script).engine.chat({ prompt: 'go', tools: [broken] });
    expect(continued.haltReason).toBe('completed');
    const seen: unknown[] = [];
    const halted = await setup(script).engine.chat({
      prompt: 'go',
      tools: [broken],
      onToolError: (error, call) => {
        seen.push((error as Error).message, call.name);
        return 'halt';
      },
    });
    expect(halted.haltReason).toBe('tool-error');
    expect(seen).toEqual(['boom', 'broken']);
  });

  it('hooks: beforeToolCall blocks or edits, afterToolCall replaces the result', async () => {
    const echo = tool({ name: 'echo', input: z.object({ text: z.string() }), execute: ({ text }) => text });
    const { engine } = setup([
      { toolCalls: [{ name: 'echo', input: { text: 'a' } }, { name: 'echo', input: { text: 'secret' } }, { name: 'echo', input: { text: 'c' } }] },
      { text: 'ok' },
    ]);
    const result = await engine.chat({
      prompt: 'go',
      tools: [echo],
      beforeToolCall: (call) => {
        const text = (call.input as { text: string }).text;
        if (text === 'secret') return { block: 'secrets are not echoed' };
        if (text === 'c') return { input: { text: 'C!' } };
        return undefined;
      },
      afterToolCall: (_call, res) => (res.output === 'a' ? { output: 'A (checked)', isError: false } : undefined),
    });
    expect(result.steps[0]!.toolResults.map((r) => [r.output, r.isError ?? false])).toEqual([
      ['A (checked)', false],
      ['The tool call was not run: secrets are not echoed', true],
      ['C!', false],
    ]);
  });

  it('valibot schemas validate; JSON Schema comes from an explicit jsonSchema', async () => {
    expect(() => tool({ name: 'v', input: v.object({ n: v.number() }) })).toThrow(/cannot produce JSON Schema/);
    const double = tool({
      name: 'double',
      input: v.object({ n: v.number() }),
      jsonSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      execute: ({ n }) => n * 2,
    });
    const { engine } = setup([{ toolCalls: [{ name: 'double', input: { n: 4 } }, { name: 'double', input: { n: 'x' } }] }, { text: 'ok' }]);
    const [good, bad] = (await engine.chat({ prompt: 'go', tools: [double] })).steps[0]!.toolResults;
    expect(good!.output).toBe(8);
    expect(bad!.isError).toBe(true);
  });

  it('plain JSON Schema tools are validated too', async () => {
    const greet = tool({
      name: 'greet',
      input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
      execute: (input) => `hi ${(input as { name: string }).name}`,
    });
    const { engine } = setup([{ toolCalls: [{ name: 'greet', input: { name: 'Ada' } }, { name: 'greet', input: { nom: 'Ada' } }] }, { text: 'ok' }]);
    const [good, bad] = (await engine.chat({ prompt: 'go', tools: [greet] })).steps[0]!.toolResults;
    expect(good!.output).toBe('hi Ada');
    expect(bad).toMatchObject({ isError: true, output: expect.stringContaining('name: required') });
  });

  it('rejects invalid tool names and duplicate tools', async () => {
    expect(() => tool({ name: 'bad name', input: {} })).toThrow(ParlanceError);
    const t = tool({ name: 'same', input: {} });
    const { engine } = setup([{ text: 'x' }]);
    await expect(engine.chat({ prompt: 'x', tools: [t, t] })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
