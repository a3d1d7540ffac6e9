import { EventType, type RunAgentInput } from '@ag-ui/core';
import type { Event, Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createAgUiEventMapper } from './ag-ui-events.ts';
import { agUiInputToThread } from './ag-ui-messages.ts';

describe('protocol events -> AG-UI events', () => {
  it('maps reasoning, text, a tool call with its result, and the finish with state and a pending frontend tool', () => {
    const mapper = createAgUiEventMapper({ threadId: 'th', runId: 'r1', messages: [], state: {} });
    const events: Event[] = [
      { type: 'message-start', messageId: 'a1' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'hm' },
      { type: 'reasoning-end', id: 'r', signature: 'sig' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hi' },
      { type: 'text-end', id: 't' },
      { type: 'tool-call-start', id: 'c1', name: 'where' },
      { type: 'tool-call-end', id: 'c1', input: {} },
      { type: 'run-paused', waitingFor: [{ kind: 'client-tool', toolCallId: 'c1', name: 'where' }] },
      { type: 'chat-finish', haltReason: 'client-tool-calls', usage: { inputTokens: 2, outputTokens: 3 } },
    ];
    const out = events.flatMap((e) => mapper.push(e));
    expect(out.map((e) => e.type)).toEqual([
      EventType.RUN_STARTED, EventType.REASONING_START, EventType.REASONING_MESSAGE_START, EventType.REASONING_MESSAGE_CONTENT, EventType.REASONING_MESSAGE_END,
      EventType.REASONING_ENCRYPTED_VALUE, EventType.REASONING_END, EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_CONTENT, EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END, EventType.STATE_DELTA, EventType.RUN_FINISHED,
    ]);
    expect(out.find((e) => e.type === EventType.REASONING_MESSAGE_START)).toMatchObject({ messageId: 'a1~r0' });
    expect(out.find((e) => e.type === EventType.TEXT_MESSAGE_START)).toMatchObject({ messageId: 'a1', role: 'assistant' });
    expect(out.find((e) => e.type === EventType.TOOL_CALL_START)).toMatchObject({ parentMessageId: 'a1', toolCallName: 'where' });
    expect(out.at(-1)).toMatchObject({ outcome: { type: 'success', pendingToolCallIds: ['c1'] }, usage: [{ inputTokens: 2, outputTokens: 3, totalTokens: 5 }] });
  });

  it('ends an error with RUN_ERROR and nothing after it', () => {
    const mapper = createAgUiEventMapper({ threadId: 'th', runId: 'r1', messages: [] });
    const out = [
      { type: 'error', code: 'overloaded', message: 'busy', retryable: true },
      { type: 'chat-finish', haltReason: 'error', usage: {}, error: { code: 'overloaded', message: 'busy' } },
    ].flatMap((e) => mapper.push(e as Event));
    expect(out).toEqual([{ type: EventType.RUN_STARTED, threadId: 'th', runId: 'r1' }, { type: EventType.RUN_ERROR, message: 'busy', code: 'overloaded' }]);
  });
});

describe('RunAgentInput -> protocol thread', () => {
  const signed: Message = { id: 'a1', role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'where', input: {}, signature: 'p1.k.c' }], pause: { waitingFor: [{ kind: 'client-tool', toolCallId: 'c1', name: 'where' }] } };
  const base = { threadId: 'th', runId: 'r2', context: [], state: { parlance: { threadId: 'th', messages: [signed] } } };

  it('takes signed messages from state, a frontend tool message as its result, and the declared tools', () => {
    const input: RunAgentInput = {
      ...base,
      tools: [{ name: 'where', description: 'location', parameters: { type: 'object' } }],
      messages: [
        { id: 'u1', role: 'user', content: 'where am I' },
        { id: 'a1~r0', role: 'reasoning', content: 'hm' },
        { id: 'a1', role: 'assistant', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'where', arguments: '{}' } }] },
        { id: 't1', role: 'tool', toolCallId: 'c1', content: '{"city":"Paris"}' },
      ],
    };
    const out = agUiInputToThread(input);
    expect(out.messages).toEqual([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'where am I' }] }, signed]);
    expect(out.resume).toEqual({ toolResults: [{ toolCallId: 'c1', output: { city: 'Paris' } }] });
    expect(out.clientTools).toEqual([{ name: 'where', description: 'location', inputSchema: { type: 'object' } }]);
  });

  it('keeps only the text of assistant messages the state does not hold', () => {
    const out = agUiInputToThread({ ...base, state: undefined, tools: [], messages: [{ id: 'x', role: 'assistant', content: 'hello', toolCalls: [{ id: 'c9', type: 'function', function: { name: 'pay', arguments: '{}' } }] }, { id: 't', role: 'tool', toolCallId: 'c9', content: 'ok' }] });
    expect(out.messages).toEqual([{ id: 'x', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] }]);
    expect(out.resume).toBeUndefined();
  });
});
