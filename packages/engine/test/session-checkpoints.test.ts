/**
 * ChatSession's checkpoints (issue #33, item 4): a host that is not our server saves the session at
 * each checkpoint; a process that stops mid-run is replaced by one that loads the last save and
 * resumes it. Every save is tried as the last one before a crash.
 */
import type { Message } from '@parlance/protocol';
import { messageText } from '@parlance/protocol';
import { fakeModel, type ScriptedTurn } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChatSession, createEngine, createThreadTrust, INTERRUPTED_RESULT, type SessionState, tool } from '../src/index.ts';

const trust = createThreadTrust({ secret: 'a-session-signing-secret-of-40-characters' });

function script(request: { messages: Message[] }): ScriptedTurn {
  const last = request.messages.at(-1)!;
  const result = last.role === 'tool' ? last.parts.find((p) => p.type === 'tool-result') : undefined;
  if (!result) return { text: 'Adding.', toolCalls: [{ id: 'call_1', name: 'add', input: { a: 1, b: 2 } }], usage: { inputTokens: 5, outputTokens: 3 } };
  return { text: `The sum is ${JSON.stringify(result.output)}.`, usage: { inputTokens: 9, outputTokens: 4 } };
}

/** A fresh "process": its own engine and tool spy. */
function processWith() {
  const ran: string[] = [];
  const add = tool({
    name: 'add',
    input: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }, { toolCallId }) => {
      ran.push(toolCallId);
      return a + b;
    },
  });
  return { engine: createEngine({ model: fakeModel({ script: (request) => script(request) }), tools: [add] }), ran };
}

describe('ChatSession checkpoints', () => {
  it('saved at every checkpoint, any save resumes to one ending; the tool never runs twice, and after its result is saved the answer is exact', async () => {
    const { engine, ran } = processWith();
    const saves: { json: string; ranBefore: number; last: string }[] = [];
    const session = ChatSession.create({ id: 's1' });
    const whole = await session.send(engine, 'Add 1 and 2', {
      trust,
      onCheckpoint: (s) => {
        const state = s.toJSON();
        saves.push({ json: JSON.stringify(s), ranBefore: ran.length, last: state.run!.events.at(-1)!.type });
      },
    });
    expect(whole.haltReason).toBe('completed');
    expect(session.toJSON().run).toBeUndefined();
    const answer = messageText(whole.thread.messages.at(-1)!);
    expect(answer).toBe('The sum is 3.');
    // The tool started only after the save of the step that asked for it.
    const askedAt = saves.findIndex((s) => s.last === 'finish');
    expect(saves[askedAt]!.ranBefore).toBe(0);
    expect(saves.map((s) => s.last)).toEqual(['finish', 'tool-result', 'step-finish', 'finish', 'step-finish']);

    for (const [i, save] of saves.entries()) {
      const after = processWith();
      const loaded = ChatSession.fromJSON(save.json);
      expect(loaded.status).toBe('running');
      const result = await loaded.resume(after.engine, { trust });
      expect(result.haltReason, `save ${i}`).toBe('completed');
      expect(loaded.status).toBe('completed');
      expect(after.ran, `save ${i}`).toEqual([]); // it ran before the save (or may have): never again
      const results = result.thread.messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool-result');
      expect(results, `save ${i}`).toHaveLength(1);
      if (save.last === 'finish' && i === askedAt) {
        expect(results[0]).toMatchObject({ output: INTERRUPTED_RESULT, isError: true });
        expect(messageText(result.thread.messages.at(-1)!)).toBe(`The sum is ${JSON.stringify(INTERRUPTED_RESULT)}.`);
      } else {
        expect(messageText(result.thread.messages.at(-1)!), `save ${i}`).toBe(answer);
        expect(result.thread.messages.map((m) => [m.role, messageText(m)])).toEqual(whole.thread.messages.map((m) => [m.role, messageText(m)]));
      }
    }
  });

  it('a saved run is verified on resume: an edited tool call is refused with 403 and nothing runs', async () => {
    const { engine } = processWith();
    let saved: SessionState | undefined;
    await ChatSession.create({ id: 's2' }).send(engine, 'Add 1 and 2', { trust, onCheckpoint: (s) => void (saved ??= s.toJSON()) });
    const edited = structuredClone(saved!);
    const end = edited.run!.events.find((e): e is Extract<typeof e, { type: 'tool-call-end' }> => e.type === 'tool-call-end')!;
    end.input = { a: 1000, b: 2 };
    const after = processWith();
    await expect(ChatSession.fromJSON(edited).resume(after.engine, { trust })).rejects.toMatchObject({ code: 'permission' });
    expect(after.ran).toEqual([]);
    // The same save unedited resumes; a session with no run in progress has nothing to resume.
    expect((await ChatSession.fromJSON(saved!).resume(after.engine, { trust })).haltReason).toBe('completed');
    await expect(ChatSession.create().resume(after.engine)).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
