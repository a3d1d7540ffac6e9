import type { Event, Message } from '@parlance/protocol';
import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createUiChunkMapper } from './ui-message-chunks.ts';
import { uiMessagesToThread } from './ui-messages.ts';

const paused: Event[] = [
  { type: 'step-start', step: 0 },
  { type: 'message-start', messageId: 'a1' },
  { type: 'reasoning-start', id: 'r' },
  { type: 'reasoning-delta', id: 'r', delta: 'hm' },
  { type: 'reasoning-end', id: 'r', providerState: { anthropic_messages: { signature: 's' } } },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'Paying.' },
  { type: 'text-end', id: 't' },
  { type: 'tool-call-start', id: 'c1', name: 'pay' },
  { type: 'tool-call-delta', id: 'c1', delta: '{"to":"bob"}' },
  { type: 'tool-call-end', id: 'c1', input: { to: 'bob' }, signature: 'p1.k.call' },
  { type: 'approval-requested', toolCallId: 'c1', name: 'pay', input: { to: 'bob' } },
  { type: 'step-finish', step: 0, finishReason: 'tool-calls', usage: {} },
  { type: 'run-paused', messageId: 'a1', waitingFor: [{ kind: 'approval', toolCallId: 'c1', name: 'pay', input: { to: 'bob' } }], signature: 'p1.k.pause' },
  { type: 'chat-finish', haltReason: 'approval', usage: { outputTokens: 3 } },
];

describe('protocol events -> UI message chunks', () => {
  it('maps a turn that pauses for approval, signatures in provider metadata and the protocol messages in message metadata', () => {
    const mapper = createUiChunkMapper({ messageId: 'ui1', threadId: 'chat' });
    const chunks = paused.flatMap((e) => mapper.push(e));
    expect(chunks.map((c) => c.type)).toEqual([
      'start', 'start-step', 'reasoning-start', 'reasoning-delta', 'reasoning-end', 'text-start', 'text-delta', 'text-end', 'message-metadata',
      'tool-input-start', 'tool-input-delta', 'tool-input-available', 'message-metadata', 'tool-approval-request', 'finish-step', 'message-metadata', 'finish',
    ]);
    expect(chunks[0]).toEqual({ type: 'start', messageId: 'ui1' });
    expect(chunks.find((c) => c.type === 'tool-input-available')).toMatchObject({ toolCallId: 'c1', toolName: 'pay', input: { to: 'bob' }, providerMetadata: { parlance: { signature: 'p1.k.call' } } });
    expect(chunks.find((c) => c.type === 'tool-approval-request')).toEqual({ type: 'tool-approval-request', approvalId: 'c1', toolCallId: 'c1' });
    const finish = chunks.at(-1) as Extract<(typeof chunks)[number], { type: 'finish' }>;
    expect(finish.finishReason).toBe('tool-calls');
    // Each piece once: the messages the UI message stands for are the merge of every metadata chunk.
    const pieces = chunks.flatMap((c) => (c.type === 'message-metadata' || c.type === 'finish' ? [c.messageMetadata!.parlance.messages] : []));
    const merged = pieces.reduce<Record<string, any>>((all, piece) => {
      for (const [id, entry] of Object.entries(piece)) all[id] = { ...all[id], ...entry, parts: { ...all[id]?.parts, ...entry.parts } };
      return all;
    }, {});
    expect(merged.a1).toMatchObject({ n: 0, role: 'assistant', pause: { signature: 'p1.k.pause' } });
    // The call's signature is in its UI part's provider metadata, once.
    expect(merged.a1.parts[2]).toEqual({ type: 'tool-call', id: 'c1', name: 'pay' });
    expect(pieces.flatMap((p) => Object.values(p).flatMap((e) => Object.keys(e.parts ?? {})))).toEqual(['0', '1', '2']);
    expect(finish.messageMetadata!.parlance.messages).toEqual({});
  });

  it('marks a denied call denied, a failed one failed, and closes what a cancelled run left open', () => {
    const mapper = createUiChunkMapper({ messageId: 'ui1', threadId: 'chat', denied: ['c1'] });
    const chunks = [
      { type: 'tool-result', toolCallId: 'c1', name: 'pay', output: 'denied', isError: true },
      { type: 'tool-result', toolCallId: 'c2', name: 'pay', output: 'boom', isError: true },
      { type: 'message-start', messageId: 'a2' },
      { type: 'step-start', step: 1 },
      { type: 'text-start', id: 't' },
      { type: 'step-finish', step: 1, finishReason: 'cancelled', usage: {} },
      { type: 'chat-finish', haltReason: 'cancelled', usage: {} },
    ].flatMap((e) => mapper.push(e as Event));
    // The block is closed before finish-step: the AI SDK forgets open blocks there.
    expect(chunks.filter((c) => c.type !== 'message-metadata').map((c) => c.type)).toEqual(['start', 'tool-output-denied', 'tool-output-error', 'start-step', 'text-start', 'text-end', 'finish-step', 'abort', 'finish']);
  });
});

describe('UI messages -> protocol thread', () => {
  const signed: Message = { id: 'a1', role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'pay', input: {}, signature: 'p1.k.call' }], pause: { waitingFor: [{ kind: 'approval', toolCallId: 'c1', name: 'pay' }], signature: 'p1.k.p' } };
  const ui = (state: string, extra: object): UIMessage => ({
    id: 'ui1',
    role: 'assistant',
    metadata: { parlance: { threadId: 'chat', messages: { a1: { n: 0, ...signed, parts: { 0: { type: 'tool-call', id: 'c1', name: 'pay' } } } } } },
    parts: [{ type: 'tool-pay', toolCallId: 'c1', state, input: {}, callProviderMetadata: { parlance: { signature: 'p1.k.call' } }, ...extra } as never],
  });

  it('takes the signed messages from metadata and an approval response as the resume', () => {
    const out = uiMessagesToThread([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'pay' }] }, ui('approval-responded', { approval: { id: 'c1', approved: false, reason: 'no' } })], 'chat');
    expect(out.messages).toEqual([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'pay' }] }, signed]);
    expect(out.resume).toEqual({ approvals: [{ toolCallId: 'c1', approved: false, reason: 'no' }] });
    expect(out.continued).toEqual({ messageId: 'ui1', prior: [signed] });
    expect(out.denied).toEqual(['c1']);
  });

  it('keeps only the text of an assistant message without Parlance metadata (or from another chat)', () => {
    const foreign: UIMessage = { ...ui('output-available', { output: 1 }), metadata: { parlance: { threadId: 'other', messages: { a1: { n: 0, ...signed, parts: {} } } } }, parts: [{ type: 'text', text: 'hi' }, { type: 'tool-pay', toolCallId: 'c1', state: 'output-available', input: {}, output: 1 } as never] };
    expect(uiMessagesToThread([foreign], 'chat')).toEqual({ messages: [{ id: 'ui1', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }], denied: [] });
  });
});
