import { describe, expect, it } from 'vitest';
import type { Event } from './events.ts';
import { type Message, messageText } from './message.ts';
import { collectResponse, createFoldState, foldEvents, foldWork, reduceEvents, threadAfterRun, toResponse } from './fold.ts';
import { createThread } from './thread.ts';

describe('the fold', () => {
  it('a compaction event becomes a compaction part of the current message (not reasoning)', async () => {
    const response = await collectResponse([
      { type: 'message-start' },
      { type: 'compaction', text: 'Earlier turns, summarized.', providerState: { anthropic_messages: { type: 'compaction' } } },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hi' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: 'stop', usage: {} },
    ]);
    expect(response.message.parts).toEqual([
      { type: 'compaction', text: 'Earlier turns, summarized.', providerState: { anthropic_messages: { type: 'compaction' } } },
      { type: 'text', text: 'Hi' },
    ]);
  });

  it('collects the warnings of the current response (a setting the model would reject was not sent)', async () => {
    const events: Event[] = [
      { type: 'message-start' },
      { type: 'warning', setting: 'topP', message: 'top_p was not sent' },
      { type: 'finish', finishReason: 'stop', usage: {} },
      { type: 'message-start' },
      { type: 'warning', setting: 'temperature', message: 'temperature was not sent' },
      { type: 'finish', finishReason: 'stop', usage: {} },
    ];
    expect((await collectResponse(events.slice(0, 3))).warnings).toEqual(['top_p was not sent']);
    // A new response starts with no warnings of its own.
    expect((await collectResponse(events)).warnings).toEqual(['temperature was not sent']);
    expect((await collectResponse([{ type: 'message-start' }, { type: 'finish', finishReason: 'stop', usage: {} }])).warnings).toBeUndefined();
  });

  it('keeps interleaved blocks apart, addressed by id', async () => {
    const events: Event[] = [
      { type: 'message-start', messageId: 'm1', responseId: 'resp_1', model: 'x' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'text-start', id: 't' },
      { type: 'reasoning-delta', id: 'r', delta: 'think ' },
      { type: 'text-delta', id: 't', delta: 'Hel' },
      { type: 'reasoning-delta', id: 'r', delta: 'hard' },
      { type: 'text-delta', id: 't', delta: 'lo' },
      { type: 'reasoning-end', id: 'r', signature: 'sig', providerState: { anthropic_messages: { signature: 'sig' } } },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: 'stop', rawFinishReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 5 } },
    ];
    const response = await collectResponse(events);
    expect(response).toEqual({
      id: 'resp_1',
      model: 'x',
      message: {
        id: 'm1',
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'think hard', signature: 'sig', providerState: { anthropic_messages: { signature: 'sig' } } },
          { type: 'text', text: 'Hello' },
        ],
      },
      finishReason: 'stop',
      rawFinishReason: 'end_turn',
      usage: { inputTokens: 3, outputTokens: 5 },
    });
  });

  it('joins a tool call whose arguments arrive in many deltas and takes the parsed input from the end event', () => {
    const args = JSON.stringify({ city: 'Zürich', days: [1, 2, 3] });
    const events: Event[] = [{ type: 'message-start' }, { type: 'tool-call-start', id: 'c1', name: 'weather' }];
    for (const ch of args) events.push({ type: 'tool-call-delta', id: 'c1', delta: ch });
    events.push({ type: 'tool-call-end', id: 'c1', input: JSON.parse(args) });
    events.push({ type: 'finish', finishReason: 'tool-calls', usage: {} });
    const response = toResponse(foldEvents(events));
    expect(response.message.parts).toEqual([{ type: 'tool-call', id: 'c1', name: 'weather', input: { city: 'Zürich', days: [1, 2, 3] } }]);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('collects a stream that ends without finish as an invalid_response error, keeping everything received', async () => {
    const response = await collectResponse([
      { type: 'message-start' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'partial ans' },
      { type: 'tool-call-start', id: 'c', name: 'f' },
      { type: 'tool-call-delta', id: 'c', delta: '{"a":1}' },
    ]);
    expect(response.finishReason).toBe('error');
    expect(response.error?.code).toBe('invalid_response');
    expect(response.message.parts).toEqual([
      { type: 'text', text: 'partial ans' },
      { type: 'tool-call', id: 'c', name: 'f', input: { a: 1 } },
    ]);
  });

  it('keeps a provider error and the text before it', async () => {
    const response = await collectResponse(
      (async function* () {
        yield { type: 'message-start' } as Event;
        yield { type: 'text-delta', id: 't', delta: 'so far' } as Event;
        yield { type: 'error', code: 'overloaded', message: 'Overloaded', retryable: true } as Event;
        yield { type: 'finish', finishReason: 'error', usage: {} } as Event;
      })(),
    );
    expect(response.message.parts).toEqual([{ type: 'text', text: 'so far' }]);
    expect(response.error).toEqual({ code: 'overloaded', message: 'Overloaded', retryable: true });
    expect(response.finishReason).toBe('error');
  });

  it('leaves a failed run\'s error on the message that failed, or on a new one when none started', () => {
    const user = { id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'hi' }] };
    const started = foldEvents(
      [
        { type: 'message-start', messageId: 'a1' },
        { type: 'error', code: 'overloaded', message: 'Overloaded', retryable: true },
        { type: 'finish', finishReason: 'error', usage: {} },
        { type: 'chat-finish', haltReason: 'error', usage: {}, error: { code: 'overloaded', message: 'Overloaded' } },
      ],
      createFoldState([user]),
    );
    expect(started.messages[1]).toEqual({ id: 'a1', role: 'assistant', parts: [], error: { code: 'overloaded', message: 'Overloaded', retryable: true } });
    const none = foldEvents([{ type: 'chat-finish', haltReason: 'error', usage: {} }], createFoldState([user]));
    expect(none.messages).toEqual([user, { id: 'msg-1', role: 'assistant', parts: [], error: { code: 'unknown', message: 'The run failed', retryable: false } }]);
    const ok = foldEvents([{ type: 'message-start', messageId: 'a1' }, { type: 'chat-finish', haltReason: 'completed', usage: {} }], createFoldState([user]));
    expect(ok.messages[1]!.error).toBeUndefined();
  });

  it('folds a multi-step run into assistant and tool messages and sums usage across steps', () => {
    const state = foldEvents(
      [
        { type: 'step-start', step: 0 },
        { type: 'message-start', messageId: 'a1' },
        { type: 'tool-call-start', id: 'c1', name: 'add' },
        { type: 'tool-call-end', id: 'c1', input: { a: 1, b: 2 } },
        { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 2 } },
        { type: 'tool-result', toolCallId: 'c1', name: 'add', output: 3, messageId: 't1' },
        { type: 'message-start', messageId: 'a2' },
        { type: 'text-delta', id: '0', delta: '3' },
        { type: 'finish', finishReason: 'stop', usage: { inputTokens: 15, outputTokens: 1 } },
        { type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 25, outputTokens: 3 } },
      ],
      createFoldState([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: '1+2?' }] }]),
    );
    expect(state.messages.map((m) => [m.id, m.role])).toEqual([
      ['u1', 'user'],
      ['a1', 'assistant'],
      ['t1', 'tool'],
      ['a2', 'assistant'],
    ]);
    expect(state.messages[2]!.parts).toEqual([{ type: 'tool-result', toolCallId: 'c1', name: 'add', output: 3 }]);
    expect(state.totalUsage).toEqual({ inputTokens: 25, outputTokens: 3 });
    expect(state.haltReason).toBe('completed');
  });

  it('withdraws the message of a step that begins again (step-restarted), so its text is never doubled', () => {
    const user: Message = { id: 'u1', role: 'user', parts: [{ type: 'text', text: '1+2?' }] };
    const finished: Event[] = [
      { type: 'step-start', step: 0 },
      { type: 'message-start', messageId: 'a1' },
      { type: 'tool-call-start', id: 'c1', name: 'add' },
      { type: 'tool-call-end', id: 'c1', input: { a: 1, b: 2 } },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 2 } },
      { type: 'tool-result', toolCallId: 'c1', name: 'add', output: 3, messageId: 't1' },
      { type: 'step-finish', step: 0, finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 2 } },
    ];
    const again: Event[] = [
      { type: 'step-start', step: 1 },
      { type: 'message-start', messageId: 'a3' },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'It is 3.' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 15, outputTokens: 3 } },
    ];
    const uninterrupted = foldEvents([...finished, ...again], createFoldState([user]));
    // Each way a step can be cut: before its message, inside a text block, inside a call's arguments, after a usage event.
    const cuts: Event[][] = [
      [{ type: 'step-start', step: 1 }],
      [{ type: 'step-start', step: 1 }, { type: 'message-start', messageId: 'a2' }, { type: 'text-start', id: '0' }, { type: 'text-delta', id: '0', delta: 'It is' }],
      [{ type: 'step-start', step: 1 }, { type: 'message-start', messageId: 'a2' }, { type: 'tool-call-start', id: 'c2', name: 'add' }, { type: 'tool-call-delta', id: 'c2', delta: '{"a":' }],
      [{ type: 'step-start', step: 1 }, { type: 'message-start', messageId: 'a2' }, { type: 'usage', usage: { inputTokens: 15 } }],
    ];
    for (const cut of cuts) {
      const messageId = cut.find((e) => e.type === 'message-start')?.messageId;
      const restarted: Event = messageId ? { type: 'step-restarted', step: 1, messageId, reason: 'takeover' } : { type: 'step-restarted', step: 1, reason: 'takeover' };
      const state = foldEvents([...finished, ...cut, restarted, ...again], createFoldState([user]));
      expect(state.messages).toEqual(uninterrupted.messages);
      expect(state.usage).toEqual({ inputTokens: 15, outputTokens: 3 });
      expect(toResponse(state).message.id).toBe('a3');
    }
    // An id the fold does not hold (a reader that joined later) withdraws nothing it kept.
    const late = foldEvents([{ type: 'step-restarted', step: 1, messageId: 'gone', reason: 'handover' }, ...again], createFoldState(uninterrupted.messages.slice(0, 3)));
    expect(late.messages).toEqual(uninterrupted.messages);
  });

  it('shares untouched messages between states, so a UI re-renders only what changed', () => {
    const before = foldEvents(
      [{ type: 'message-start', messageId: 'a' }, { type: 'text-delta', id: 't', delta: 'x' }],
      createFoldState([{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }]),
    );
    const after = reduceEvents(before, { type: 'text-delta', id: 't', delta: 'y' });
    expect(after.messages[0]).toBe(before.messages[0]);
    expect(after.messages[1]).not.toBe(before.messages[1]);
    expect(before.messages[1]!.parts[0]).toEqual({ type: 'text', text: 'x' });
  });

  it('folds a delta without copying the thread: the same work at 0 or 10,000 prior messages', () => {
    const copiedPerReply = (priorCount: number) => {
      const prior: Message[] = Array.from({ length: priorCount }, (_, i) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: `m${i}` }] }));
      let state = foldEvents([{ type: 'message-start', messageId: 'a' }, { type: 'text-start', id: 't' }], createFoldState(prior));
      const states = [state];
      const before = foldWork.messagesCopied;
      for (let i = 0; i < 200; i++) states.push((state = reduceEvents(state, { type: 'text-delta', id: 't', delta: `${i} ` })));
      const copied = foldWork.messagesCopied - before;
      // Every state is still whole, and later ones did not change it; reading one copies the thread once.
      expect(messageText(states[1]!.messages[priorCount]!)).toBe('0 ');
      if (priorCount) expect(states[1]!.messages[0]).toBe(prior[0]);
      expect(messageText(state.messages[priorCount]!)).toBe(Array.from({ length: 200 }, (_, i) => `${i} `).join(''));
      expect(foldWork.messagesCopied - before - copied).toBe(2 * priorCount);
      return copied;
    };
    expect(copiedPerReply(0)).toBe(0);
    expect(copiedPerReply(10_000)).toBe(0);
  });

  it('leaves usage fields the provider did not report undefined', async () => {
    const response = await collectResponse([
      { type: 'message-start' },
      { type: 'usage', usage: { inputTokens: 4 } },
      { type: 'finish', finishReason: 'stop', usage: { outputTokens: 2 } },
    ]);
    expect(response.usage).toEqual({ inputTokens: 4, outputTokens: 2 });
    expect('cacheReadTokens' in response.usage).toBe(false);
  });

  it('merges message-metadata into the named message, else the one streaming; an unknown id changes nothing', () => {
    const before: Message[] = [{ id: 'u1', role: 'user', parts: [], metadata: { lang: 'fr' } }];
    const state = foldEvents(
      [
        { type: 'message-metadata', messageId: 'u1', metadata: { seen: true } },
        { type: 'message-start', messageId: 'a1' },
        { type: 'message-metadata', metadata: { cost: 1 } },
        { type: 'message-metadata', messageId: 'a1', metadata: { cost: 2, model: 'm' } },
        { type: 'message-metadata', messageId: 'nope', metadata: { lost: true } },
      ],
      createFoldState(before),
    );
    expect(state.messages.map((m) => m.metadata)).toEqual([{ lang: 'fr', seen: true }, { cost: 2, model: 'm' }]);
    expect(before[0]!.metadata).toEqual({ lang: 'fr' });
  });

  it('threadAfterRun: the thread sent, without empty turns, with the events folded on and the new metadata', () => {
    const sent = createThread('t', [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      { id: 'gone', role: 'assistant', parts: [] },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Hi?' }] },
    ], { title: 'T' });
    const events: Event[] = [
      { type: 'message-start', messageId: 'a' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Yes' },
      { type: 'chat-finish', haltReason: 'completed', usage: {}, metadata: { title: 'T', trace: 'x' } },
    ];
    const after = threadAfterRun(sent, events);
    expect(after.messages.map((m) => [m.id, messageText(m)])).toEqual([['u1', 'Hi'], ['u2', 'Hi?'], ['a', 'Yes']]);
    expect(after).toMatchObject({ id: 't', version: sent.version, metadata: { title: 'T', trace: 'x' } });
    // A server that sends its thread (the request had bare messages) is taken at its word.
    const given = createThread('t2', []);
    expect(threadAfterRun(sent, [{ type: 'chat-finish', haltReason: 'completed', usage: {}, thread: given }])).toBe(given);
  });
});
