import { createThread, messageText, type Event, type Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { chatReducer, settle, type ChatState } from './chat-reducer.ts';

const prior = (count: number): Message[] =>
  Array.from({ length: count }, (_, i) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: `m${i}` }] }));

function streaming(messages: Message[]): ChatState {
  let state: ChatState = { thread: { ...createThread('t'), messages }, status: 'ready', pending: [], queue: [], quarantined: [] };
  state = chatReducer(state, { type: 'run', runId: 'run_1' });
  const start: Event[] = [{ type: 'message-start', messageId: 'a' }, { type: 'text-start', id: 't' }];
  for (const [i, event] of start.entries()) state = chatReducer(state, { type: 'event', event, id: String(i) });
  return state;
}

describe('the chat reducer', () => {
  it('folds a delta without touching the thread (settled once per publication), at 0 or 10,000 prior messages', () => {
    for (const count of [0, 10_000]) {
      let state = streaming(prior(count));
      const thread = state.thread;
      for (let i = 0; i < 300; i++) {
        state = chatReducer(state, { type: 'event', event: { type: 'text-delta', id: 't', delta: `${i} ` }, id: String(i + 2) });
        // The thread object (and with it its messages array) is the one from before the deltas.
        expect(state.thread).toBe(thread);
      }
      const published = settle(state);
      expect(published.thread.messages).toHaveLength(count + 1);
      if (count) expect(published.thread.messages[0]).toBe(thread.messages[0]);
      expect(messageText(published.thread.messages[count]!)).toBe(Array.from({ length: 300 }, (_, i) => `${i} `).join(''));
      expect(published.run?.lastEventId).toBe('301');
    }
  });

  it('settles the thread before any other action, so nothing streamed is lost', () => {
    let state = streaming(prior(2));
    state = chatReducer(state, { type: 'event', event: { type: 'text-delta', id: 't', delta: 'kept' }, id: '2' });
    state = chatReducer(state, { type: 'stopped' });
    expect(messageText(state.thread.messages.at(-1)!)).toBe('kept');
    expect(state.run).toBeUndefined();
  });

  it('ignores a replayed delta (a resume overlapping what was folded)', () => {
    let state = streaming([]);
    state = chatReducer(state, { type: 'event', event: { type: 'text-delta', id: 't', delta: 'a' }, id: '2' });
    state = chatReducer(state, { type: 'event', event: { type: 'text-delta', id: 't', delta: 'a' }, id: '2' });
    expect(messageText(settle(state).thread.messages[0]!)).toBe('a');
  });

  it('ends a run with the thread its events fold to: the server sends no thread, only what it changed', () => {
    // A turn cancelled before the model said anything left an empty assistant message: the run
    // starts where the server's does (`runMessages`), without it.
    const empty: Message = { id: 'cancelled', role: 'assistant', parts: [] };
    let state = streaming([...prior(1), empty, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'again' }] }]);
    const rest: Event[] = [
      { type: 'text-delta', id: 't', delta: 'Hello' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: 'stop', usage: { outputTokens: 1 } },
      { type: 'message-metadata', messageId: 'a', metadata: { usage: { outputTokens: 1 } } },
      { type: 'chat-finish', haltReason: 'completed', usage: { outputTokens: 1 }, metadata: { trace: 'x' } },
    ];
    for (const [i, event] of rest.entries()) state = chatReducer(state, { type: 'event', event, id: String(i + 2) });
    expect(state.status).toBe('ready');
    expect(state.thread.messages.map((m) => m.id)).toEqual(['m0', 'u2', 'a']);
    expect(state.thread.messages[2]).toMatchObject({ parts: [{ type: 'text', text: 'Hello' }], metadata: { usage: { outputTokens: 1 } } });
    expect(state.thread.metadata).toEqual({ trace: 'x' });
  });
});
