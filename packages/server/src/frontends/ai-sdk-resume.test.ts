// A reload at every chunk boundary of one assistant turn that runs a server tool, pauses for an
// approval, pauses again for a client tool, and ends (three runs, one UI message). The browser is
// the AI SDK's own code: DefaultChatTransport and readUIMessageStream, as useChat runs them; a
// reload keeps what apps/ai-sdk-ui keeps (the messages without the one in flight) and resumes
// with reconnectToStream, which rebuilds the message from scratch (resumeStreamIsReplay).
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { frontendServer } from '../../test/frontends-fixture.ts';
import type { ParlanceUiMetadata } from './ui-metadata.ts';
import { uiMessagesToThread } from './ui-messages.ts';

type Ui = UIMessage<ParlanceUiMetadata>;
type Server = ReturnType<typeof frontendServer>;

const TURN = [
  { reasoning: 'A time, a payment, a place.', text: 'Checking the time.', toolCalls: [{ id: 'call_t', name: 'get_time', input: {} }] },
  { toolCalls: [{ id: 'call_pay', name: 'transfer_money', input: { to: 'bob', amount: 5 } }] },
  { text: 'Paid. Where are you?', toolCalls: [{ id: 'call_loc', name: 'share_location', input: {} }] },
  { text: 'Done: paid bob from Lisbon at noon.' },
];
const CHAT = 'chat-reload';
const user: Ui = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'pay bob, then tell me where I am' }] };

function transport(app: Server['app']) {
  return new DefaultChatTransport<Ui>({ api: 'http://localhost/api/chat', headers: { 'x-user': 'alice' }, fetch: ((input: RequestInfo | URL, init?: RequestInit) => app.request(String(input), init)) as typeof fetch });
}

/** Reads up to `limit` chunks into `message` (a continued one) or a new message; `cut` when it stopped early. */
async function read(stream: ReadableStream<UIMessageChunk>, message: Ui | undefined, limit: number, abort?: AbortController): Promise<{ message: Ui | undefined; read: number; cut: boolean }> {
  const reader = stream.getReader();
  let count = 0;
  const counted = new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      if (count === limit) {
        abort?.abort();
        await reader.cancel().catch(() => {});
        controller.close();
        return;
      }
      const next = await reader.read();
      if (next.done) return controller.close();
      count++;
      controller.enqueue(next.value);
    },
  });
  let last = message;
  for await (const m of readUIMessageStream<Ui>({ stream: counted as never, ...(message ? { message } : {}) })) last = m;
  return { message: last, read: count, cut: count === limit };
}

/** What useChat would send next for a paused message: the approval given, or the client tool's output. */
function answer(message: Ui): Ui | undefined {
  const parts = message.parts.map((p) => {
    const part = p as Record<string, any>;
    if (part.state === 'approval-requested') return { ...part, state: 'approval-responded', approval: { id: part.approval.id, approved: true } };
    if (part.type === 'tool-share_location' && part.state === 'input-available') return { ...part, state: 'output-available', output: { city: 'Lisbon' } };
    return part;
  });
  const changed = parts.some((p, i) => p !== message.parts[i]);
  return changed ? ({ ...message, parts } as Ui) : undefined;
}

/**
 * Plays the turn to its end, reading `budget` chunks in all before a reload (Infinity: none). Returns
 * the final message and whether a reload happened.
 */
async function playTurn(server: Server, budget: number): Promise<{ message: Ui; reloaded: boolean }> {
  const t = transport(server.app);
  let left = budget;
  let reloaded = false;
  let message: Ui | undefined;
  let continued: Ui | undefined;
  for (let request = 0; request < 6; request++) {
    const abort = new AbortController();
    const messages = continued ? [user, continued] : [user];
    const stream = await t.sendMessages({ chatId: CHAT, messages, trigger: 'submit-message', messageId: undefined, abortSignal: abort.signal });
    const got = await read(stream, continued, reloaded ? Infinity : left, abort);
    left -= got.read;
    message = got.message;
    if (got.cut && !reloaded) {
      // The reload: the page keeps the messages without the one in flight, and resumes.
      reloaded = true;
      const resumed = await t.reconnectToStream({ chatId: CHAT });
      expect(resumed).not.toBeNull();
      message = (await read(resumed!, undefined, Infinity)).message;
    }
    continued = message && answer(message);
    if (!continued) break;
  }
  return { message: message!, reloaded };
}

/**
 * The parts without signatures and block ids (each server makes its own message ids), and without
 * `approval.approved`: the browser set it on its own part, and the UI message stream has no chunk
 * that carries it, so a replay shows the approval by its result (docs/frontends.md).
 */
const shape = (m: Ui) =>
  m.parts.map((p) => {
    const part = Object.fromEntries(Object.entries(p).filter(([key]) => key !== 'id' && !key.endsWith('roviderMetadata')));
    if (part.approval) part.approval = { id: (part.approval as { id: string }).id };
    return part;
  });

describe('a reload anywhere in a turn that paused and went on', () => {
  it('rebuilds the whole assistant message, at every chunk boundary, and the thread still verifies', async () => {
    const { message: reference } = await playTurn(frontendServer(TURN), Infinity);
    expect(reference.parts.filter((p) => p.type.startsWith('tool-')).map((p) => [p.type, (p as { state: string }).state])).toEqual([
      ['tool-get_time', 'output-available'],
      ['tool-transfer_money', 'output-available'],
      ['tool-share_location', 'output-available'],
    ]);
    expect(reference.parts.at(-1)).toMatchObject({ type: 'text', text: 'Done: paid bob from Lisbon at noon.' });
    let budget = 0;
    for (; budget < 500; budget++) {
      const server = frontendServer(TURN, { cancelAbandonedAfterMs: 60_000 });
      const { message, reloaded } = await playTurn(server, budget);
      // A budget past the turn's last chunk reloads nowhere: every boundary was tried.
      if (!reloaded) break;
      const at = `reload after ${budget} chunks`;
      expect(shape(message), at).toEqual(shape(reference));
      expect(server.transfer, at).toHaveBeenCalledOnce();
      // The metadata it ends with is the signed thread: the conversation goes on.
      const thread = uiMessagesToThread([user, message], CHAT).messages;
      expect(thread.map((m) => m.role), at).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
      const next = await server.app.request('/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': 'alice' },
        body: JSON.stringify({ id: CHAT, messages: [user, message, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'thanks' }] }], trigger: 'submit-message' }),
      });
      expect(next.status, at).toBe(200);
      await next.body?.cancel();
    }
    // Three requests' worth of chunks: every one of them was a reload point.
    expect(budget).toBeGreaterThan(40);
  }, 120_000);
});
