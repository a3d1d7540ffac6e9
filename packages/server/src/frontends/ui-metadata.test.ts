import type { Message } from '@parlance/protocol';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { frontendServer } from '../../test/frontends-fixture.ts';
import { createMetadataDelta, metadataMessages, type ParlanceUiMetadata } from './ui-metadata.ts';
import { uiMessagesToThread } from './ui-messages.ts';

type Ui = UIMessage<ParlanceUiMetadata>;

/** A run of `steps` model calls: each but the last calls get_time (a server tool), the last answers. */
async function run(steps: number) {
  const script = [...Array.from({ length: steps - 1 }, (_, i) => ({ text: `Step ${i}.`, toolCalls: [{ id: `call_${i}`, name: 'get_time', input: {} }] })), { text: 'Done.' }];
  const { app } = frontendServer(script, {}, { maxSteps: steps });
  let streamed = 0;
  let counted: Promise<void> = Promise.resolve();
  const counting = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await app.request(String(input), init);
    const [mine, theirs] = response.body!.tee();
    counted = (async () => {
      for await (const chunk of mine as unknown as AsyncIterable<Uint8Array>) streamed += chunk.length;
    })();
    return new Response(theirs, { status: response.status, headers: response.headers });
  }) as typeof fetch;
  const transport = new DefaultChatTransport<Ui>({ api: 'http://localhost/api/chat', headers: { 'x-user': 'alice' }, fetch: counting });
  const user: Ui = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'go' }] };
  const stream = await transport.sendMessages({ chatId: 'c', messages: [user], trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
  let message!: Ui;
  for await (const m of readUIMessageStream<Ui>({ stream: stream as never })) message = m;
  await counted;
  // What useChat posts with the next user message: the whole conversation, this message included.
  const next = JSON.stringify({ id: 'c', messages: [user, message, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'thanks' }] }], trigger: 'submit-message' });
  const sent = await app.request('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json', 'x-user': 'alice' }, body: next });
  expect(sent.status).toBe(200);
  await sent.body?.cancel();
  return { streamed, posted: new TextEncoder().encode(next).length, message };
}

describe('message metadata in pieces', () => {
  it('keeps stream and POST bytes linear in the steps of a run (1, 4, 16 steps)', async () => {
    const [one, four, sixteen] = [await run(1), await run(4), await run(16)];
    expect(Object.values(sixteen.message.metadata!.parlance.messages)).toHaveLength(31);
    for (const key of ['streamed', 'posted'] as const) {
      const early = (four[key] - one[key]) / 3;
      const late = (sixteen[key] - four[key]) / 12;
      // Quadratic growth (the whole message list in every metadata chunk) makes the later steps cost several times the earlier ones.
      expect(late / early, `${key}: ${one[key]}, ${four[key]}, ${sixteen[key]} bytes`).toBeGreaterThan(0.9);
      expect(late / early, `${key}: ${one[key]}, ${four[key]}, ${sixteen[key]} bytes`).toBeLessThan(1.1);
    }
  });

  it('sends each part once, when complete, and the UI parts give back what it leaves out', () => {
    const messages: Message[] = [
      { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Paying.' }, { type: 'tool-call', id: 'c1', name: 'pay', input: { to: 'bob' }, signature: 's1' }] },
      { id: 't1', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', name: 'pay', output: { ok: true }, signature: 's2' }, { type: 'tool-result', toolCallId: 'c2', name: 'pay', output: 'boom', isError: true, signature: 's3' }] },
    ];
    const delta = createMetadataDelta();
    const first = delta.next(messages.slice(0, 1), (_, part) => part === 0);
    expect(first).toEqual({ a1: { n: 0, role: 'assistant', parts: { 0: { type: 'text' } } } });
    expect(delta.next(messages.slice(0, 1), (_, part) => part === 0)).toBeUndefined();
    const rest = delta.next(messages, () => true);
    expect(rest).toEqual({
      a1: { parts: { 1: { type: 'tool-call', id: 'c1', name: 'pay' } } },
      t1: { n: 1, role: 'tool', parts: { 0: { type: 'tool-result', toolCallId: 'c1', name: 'pay' }, 1: messages[1]!.parts[1] } },
    });
    const merged = { a1: { ...first!.a1, ...rest!.a1, parts: { ...first!.a1!.parts, ...rest!.a1!.parts } }, t1: rest!.t1 };
    const ui: UIMessage = {
      id: 'ui1',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Paying.' },
        { type: 'tool-pay', toolCallId: 'c1', state: 'output-available', input: { to: 'bob' }, output: { ok: true }, callProviderMetadata: { parlance: { signature: 's1' } }, resultProviderMetadata: { parlance: { signature: 's2' } } },
      ] as UIMessage['parts'],
    };
    expect(metadataMessages(ui, merged)).toEqual(messages);
    // A message's own fields go again only when they change (a pause added).
    expect(delta.next([{ ...messages[0]!, pause: { waitingFor: [], signature: 'p' } }, messages[1]!], () => true)).toEqual({ a1: { pause: { waitingFor: [], signature: 'p' } } });
  });

  it('reads messages sent in any order of keys, and nothing from what is not an object', () => {
    const ui: UIMessage = { id: 'ui1', role: 'assistant', parts: [] };
    expect(metadataMessages(ui, [])).toBeUndefined();
    expect(metadataMessages(ui, 'x')).toBeUndefined();
    expect(metadataMessages(ui, { b: { n: 1, role: 'tool', parts: {} }, a: { n: 0, role: 'assistant', parts: { 10: { type: 'source', url: 'u' }, 2: { type: 'source', url: 'v' } } } })).toEqual([
      { id: 'a', role: 'assistant', parts: [{ type: 'source', url: 'v' }, { type: 'source', url: 'u' }] },
      { id: 'b', role: 'tool', parts: [] },
    ]);
    expect(uiMessagesToThread([{ ...ui, metadata: { parlance: { threadId: 'c', messages: {} } } }], 'c').messages).toEqual([{ id: 'ui1', role: 'assistant', parts: [] }]);
  });
});
