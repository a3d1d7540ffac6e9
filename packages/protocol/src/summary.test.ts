import { describe, expect, it } from 'vitest';
import { createFoldState, reduceEvents } from './fold.ts';
import type { Message } from './message.ts';
import { partText } from './message.ts';
import { createThread, parseThread, serializeThread } from './thread.ts';

const before: Message[] = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
  { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Hello' }] },
];

describe('summary parts', () => {
  it('a summary event folds into a user message holding one summary part', () => {
    const state = reduceEvents(createFoldState(before), { type: 'summary', messageId: 's1', text: 'They greeted.', through: 'a1' });
    expect(state.messages.at(-1)).toEqual({ id: 's1', role: 'user', parts: [{ type: 'summary', text: 'They greeted.', through: 'a1' }] });
    expect(partText(state.messages.at(-1)!.parts[0]!)).toBe('They greeted.');
  });

  it('round trips through the thread codec; a summary without `through` is rejected with its path', () => {
    const thread = createThread('t', [...before, { id: 's1', role: 'user', parts: [{ type: 'summary', text: 'S', through: 'a1' }] }]);
    expect(parseThread(serializeThread(thread))).toEqual(thread);
    const broken = { ...thread, messages: [...before, { id: 's1', role: 'user', parts: [{ type: 'summary', text: 'S' }] }] };
    expect(() => parseThread(broken)).toThrow(/messages\.2\.parts\.0\.through/);
  });
});
