import { describe, expect, test } from 'vitest';
import { createFoldState, foldEvents } from './fold.ts';
import type { Message } from './message.ts';
import { pendingInputs } from './pending.ts';
import { parseThread, serializeThread, createThread } from './thread.ts';

const user = (id: string, text: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const calls: Message = {
  id: 'a1',
  role: 'assistant',
  parts: [
    { type: 'tool-call', id: 'c1', name: 'weather', input: { city: 'Rome' } },
    { type: 'tool-call', id: 'c2', name: 'pick', input: {} },
  ],
};

describe('pendingInputs', () => {
  const paused = foldEvents(
    [
      {
        type: 'run-paused',
        waitingFor: [
          { kind: 'approval', toolCallId: 'c1', name: 'weather', input: { city: 'Rome' } },
          { kind: 'client-tool', toolCallId: 'c2', name: 'pick', input: {} },
        ],
      },
    ],
    createFoldState([user('u1', 'weather in Rome'), calls]),
  ).messages;

  test('the fold writes the pause onto the paused assistant message', () => {
    expect(paused[1]!.pause?.waitingFor.map((p) => p.toolCallId)).toEqual(['c1', 'c2']);
    expect(pendingInputs(paused).map((p) => p.kind)).toEqual(['approval', 'client-tool']);
  });

  test('the pause survives serialization (a reload keeps what the run waits for)', () => {
    const reloaded = parseThread(serializeThread(createThread('t', paused)));
    expect(pendingInputs(reloaded.messages)).toEqual(pendingInputs(paused));
  });

  test('a result answers its call; the rest stays owed', () => {
    const answered: Message = { id: 't1', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c2', name: 'pick', output: 1 }] };
    expect(pendingInputs([...paused, answered]).map((p) => p.toolCallId)).toEqual(['c1']);
  });

  test('a user message after the pause means nothing is owed; so does a thread with no pause', () => {
    expect(pendingInputs([...paused, user('u2', 'never mind')])).toEqual([]);
    expect(pendingInputs([user('u1', 'hi'), calls])).toEqual([]);
    expect(pendingInputs([])).toEqual([]);
  });

  test('a pause with an unknown kind is refused by the thread codec', () => {
    const bad = JSON.parse(serializeThread(createThread('t', paused)));
    bad.messages[1].pause.waitingFor[0].kind = 'run-anything';
    expect(() => parseThread(bad)).toThrow(/messages\.1\.pause\.waitingFor\.0\.kind/);
  });
});
