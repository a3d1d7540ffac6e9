import { createFoldState, createThread, reduceEvents, type Event, type Message, type ToolCallPart } from '@parlance/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createThreadTrust } from './thread-trust.ts';

// Counts the signer's folds (the engine already folded every event; the signer must not again per delta).
vi.mock('@parlance/protocol', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@parlance/protocol')>();
  return { ...actual, reduceEvents: vi.fn(actual.reduceEvents) };
});

const SECRET = 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const user = (text: string, id = 'u1'): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });

/** Two interleaved text blocks, a reasoning block, a delta with no start, a tool call, then the runner's (unsigned, textless) thread. */
function stream(deltas: number): Event[] {
  const events: Event[] = [
    { type: 'message-start', messageId: 'a1' },
    { type: 'reasoning-start', id: 'r0' },
    { type: 'text-start', id: 't0' },
  ];
  for (let i = 0; i < deltas; i++) {
    events.push({ type: 'text-delta', id: 't0', delta: `w${i} ` });
    if (i % 100 === 0) events.push({ type: 'reasoning-delta', id: 'r0', delta: `think${i} ` });
  }
  events.push(
    { type: 'reasoning-end', id: 'r0' },
    { type: 'text-delta', id: 'loose', delta: 'no start' },
    { type: 'text-delta', id: 'loose', delta: ', then more' },
    { type: 'tool-call-start', id: 'c1', name: 'get_balance' },
    { type: 'tool-call-delta', id: 'c1', delta: '{}' },
    { type: 'tool-call-end', id: 'c1', input: {} },
    { type: 'text-delta', id: 't0', delta: 'after the call' },
    { type: 'text-end', id: 't0' },
    { type: 'finish', finishReason: 'tool-calls', usage: {} },
    { type: 'tool-result', toolCallId: 'c1', name: 'get_balance', output: 42, messageId: 'r1' },
  );
  const textless: Message[] = [
    { id: 'a1', role: 'assistant', parts: [] },
    { id: 'r1', role: 'tool', parts: [] },
  ];
  events.push({ type: 'chat-finish', haltReason: 'completed', usage: {}, thread: createThread('t1', [user('hi'), ...textless]) });
  return events;
}

async function* source(events: Event[]): AsyncGenerator<Event> {
  for (const event of events) yield event;
}

describe('signEvents folds what signing needs, not every delta', () => {
  it('folds a block of deltas once, and hands out the same signed thread as folding each', async () => {
    const events = stream(1_000);
    const trust = createThreadTrust({ secret: SECRET });
    const thread = createThread('t1', [user('hi')]);
    const folds = vi.mocked(reduceEvents);
    folds.mockClear();
    const out: Event[] = [];
    for await (const event of trust.signEvents(thread, source(events))) out.push(event);
    // 1,000 text and 10 reasoning deltas; every other event is folded (and the signed ones twice).
    expect(folds.mock.calls.length).toBeLessThan(60);
    expect(out.filter((e) => e.type === 'text-delta')).toHaveLength(1_003);

    // The thread the chat-finish carries: the parts as the stream folds them, each delta in order.
    let reference = createFoldState(thread.messages);
    for (const event of out) if (event.type !== 'chat-finish') reference = reduceEvents(reference, event);
    const finish = out.at(-1) as Extract<Event, { type: 'chat-finish' }>;
    const signed = finish.thread!.messages[1]!;
    expect(finish.thread!.messages.slice(1)).toEqual(reference.messages.slice(1));
    expect(signed.parts.map((p) => p.type)).toEqual(['reasoning', 'text', 'text', 'tool-call']);
    expect((signed.parts[1] as { text: string }).text).toMatch(/^w0 w1 .* w999 after the call$/);
    expect((signed.parts[3] as ToolCallPart).signature).toMatch(/^p3\./);
    expect(finish.thread!.messages[2]!.parts[0]).toMatchObject({ type: 'tool-result', signature: expect.stringMatching(/^p3\./) });
    await expect(trust.verifyThread(createThread('t1', [...finish.thread!.messages]))).resolves.toBeUndefined();
  });
});
