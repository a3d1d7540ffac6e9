/**
 * Going on from a checkpoint, cut everywhere: one uninterrupted run is recorded, then every prefix
 * of its events (every place a process can stop) is continued by a fresh engine. The folded thread
 * must say what the uninterrupted run said, a tool that may have begun runs at most once unless it
 * is idempotent, and there is exactly one ending.
 */
import { createFoldState, type Event, foldEvents, type Message, type Part, type Usage } from '@parlance/protocol';
import { fakeModel, type ScriptedTurn } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngine } from '../engine.ts';
import { tool } from '../tools/tool.ts';
import { INTERRUPTED_RESULT } from './checkpoint.ts';

const thread = { version: 1 as const, id: 'th', messages: [{ id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'Add 1 and 2' }] }] };

/** The model answers from the request alone, so a call made again says the same. */
function script(request: { messages: Message[] }): ScriptedTurn {
  const last = request.messages.at(-1)!;
  const result = last.role === 'tool' ? last.parts.find((p) => p.type === 'tool-result') : undefined;
  if (!result) return { text: ['Let me ', 'add.'], toolCalls: [{ id: 'call_1', name: 'add', input: { a: 1, b: 2 } }], usage: { inputTokens: 5, outputTokens: 3 } };
  return { text: ['The sum ', 'is ', `${JSON.stringify(result.output)}.`], usage: { inputTokens: 9, outputTokens: 4 } };
}

function setup(idempotent: boolean) {
  const executed: string[] = [];
  const add = tool({
    name: 'add',
    input: z.object({ a: z.number(), b: z.number() }),
    idempotent,
    execute: ({ a, b }, { toolCallId }) => {
      executed.push(toolCallId);
      return a + b;
    },
  });
  let n = 0;
  const engine = createEngine({ model: fakeModel({ script: (request) => script(request) }), tools: [add], generateId: () => `id${++n}` });
  return { engine, executed };
}

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The thread as a reader sees it, without generated ids (a continued run names its new messages itself). */
function shown(events: Event[]): { role: string; parts: Part[] }[] {
  return foldEvents(events, createFoldState(thread.messages)).messages.map((m) => ({ role: m.role, parts: m.parts.map(({ signature: _s, ...p }: Part & { signature?: string }) => p as Part) }));
}

describe('a run continued from a checkpoint', () => {
  it('says what the uninterrupted run says, wherever it was cut; a non-idempotent tool that may have begun is not run again', async () => {
    const whole = await collect(setup(false).engine.streamChat({ thread }));
    const finishedAt = whole.findIndex((e) => e.type === 'finish'); // step 0's model response is recorded: its tool call begins
    const resultAt = whole.findIndex((e) => e.type === 'tool-result');
    const total = (whole.at(-1) as Extract<Event, { type: 'chat-finish' }>).usage;
    expect(whole.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
    for (let cut = 0; cut < whole.length - 1; cut++) {
      const { engine, executed } = setup(false);
      const recorded = whole.slice(0, cut);
      const rest = await collect(engine.streamChat({ thread, checkpoint: { events: recorded, reason: 'takeover' } }));
      const all = [...recorded, ...rest];
      expect(all.filter((e) => e.type === 'chat-finish'), `cut at ${cut}`).toHaveLength(1);
      const finish = all.at(-1) as Extract<Event, { type: 'chat-finish' }>;
      expect(finish.haltReason).toBe('completed');
      // The model call cut mid-step is withdrawn once, never shown twice.
      const restarted = rest.filter((e) => e.type === 'step-restarted');
      const midModel = recorded.some((e) => e.type === 'step-start') && recorded.at(-1)?.type !== 'step-finish' && !inToolPhase(recorded);
      expect(restarted, `cut at ${cut}`).toHaveLength(midModel ? 1 : 0);
      if (cut > finishedAt && cut <= resultAt) {
        // The call may have begun in the stopped process: not run again, the model is told.
        expect(executed, `cut at ${cut}`).toEqual([]);
        const result = all.find((e) => e.type === 'tool-result');
        expect(result).toMatchObject({ toolCallId: 'call_1', output: INTERRUPTED_RESULT, isError: true });
        expect(textOf(all)).toContain(`The sum is ${JSON.stringify(INTERRUPTED_RESULT)}.`);
      } else {
        expect(executed, `cut at ${cut}`).toEqual(cut <= finishedAt ? ['call_1'] : []);
        expect(shown(all), `cut at ${cut}`).toEqual(shown(whole));
        expect(finish.usage, `cut at ${cut}`).toEqual(total);
      }
    }
  });

  it('runs an idempotent tool again with the same call id when it may have begun', async () => {
    const whole = await collect(setup(true).engine.streamChat({ thread }));
    const finishedAt = whole.findIndex((e) => e.type === 'finish');
    const { engine, executed } = setup(true);
    const recorded = whole.slice(0, finishedAt + 1);
    const rest = await collect(engine.streamChat({ thread, checkpoint: { events: recorded, reason: 'handover' } }));
    expect(executed).toEqual(['call_1']);
    expect(shown([...recorded, ...rest])).toEqual(shown(whole));
    expect((rest.at(-1) as { usage: Usage }).usage).toEqual((whole.at(-1) as { usage: Usage }).usage);
  });

  it('withdraws the message of a model call cut mid-stream with one step-restarted naming it and the reason', async () => {
    const whole = await collect(setup(false).engine.streamChat({ thread }));
    const second = whole.findIndex((e) => e.type === 'step-start' && e.step === 1);
    const recorded = whole.slice(0, second + 4); // step 1's message began and has text
    const cutMessage = [...recorded].reverse().find((e) => e.type === 'message-start')!;
    const rest = await collect(setup(false).engine.streamChat({ thread, checkpoint: { events: recorded, reason: 'handover' } }));
    expect(rest[0]).toEqual({ type: 'step-restarted', step: 1, messageId: (cutMessage as { messageId: string }).messageId, reason: 'handover' });
    expect(rest[1]).toEqual({ type: 'step-start', step: 1 });
  });
});

function inToolPhase(events: Event[]): boolean {
  const lastStep = events.map((e) => e.type).lastIndexOf('step-start');
  return events.slice(lastStep).some((e) => e.type === 'finish');
}

function textOf(events: Event[]): string {
  return events.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('');
}
