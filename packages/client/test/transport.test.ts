import { type Event, formatLeanFrame, formatSseFrame, leanWire } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import { readSse } from '../src/sse.ts';
import { fetchModels } from '../src/transport.ts';
import { createMockServer } from './mock-server.ts';

const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(new TextEncoder().encode(chunk));
      c.close();
    },
  });

const provenance = { provider: 'p', model: 'm', dialect: 'anthropic_messages' } as const;
/** A tool round trip as a server stores it: two responses from one model, the input count after each start. */
const stored: Event[] = [
  { type: 'message-start', messageId: 'a1', provenance },
  { type: 'usage', usage: { inputTokens: 5, outputTokens: 0 } },
  { type: 'text-start', id: 't0' },
  { type: 'text-delta', id: 't0', delta: 'Hi' },
  { type: 'text-end', id: 't0' },
  { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 1 } },
  { type: 'message-start', messageId: 'a2', provenance },
  { type: 'usage', usage: { inputTokens: 6, outputTokens: 0 } },
  { type: 'text-start', id: 't0' },
  { type: 'text-delta', id: 't0', delta: 'again' },
  { type: 'text-end', id: 't0' },
  { type: 'finish', finishReason: 'stop', usage: { inputTokens: 6, outputTokens: 1 } },
  { type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 11, outputTokens: 2 } },
];
const leanBody = () => {
  const lean = leanWire();
  return [...stored.flatMap((event, seq) => lean.frames(event, seq)), ...lean.flush()].map(formatLeanFrame).join('');
};

describe('readSse', () => {
  it('wire 2: reads frames without the space after the colon, and puts back a provenance left out', async () => {
    const text = leanBody();
    expect(text.match(/"provenance"/g)).toHaveLength(1);
    const seen: Event[] = [];
    await readSse(body(text), (e) => seen.push(e), { wire: 2 });
    const starts = seen.filter((e) => e.type === 'message-start');
    expect(starts).toEqual([
      { type: 'message-start', messageId: 'a1', provenance, usage: { inputTokens: 5, outputTokens: 0 } },
      { type: 'message-start', messageId: 'a2', provenance, usage: { inputTokens: 6, outputTokens: 0 } },
    ]);
    // Read as wire 1, the start stays as sent.
    const plain: Event[] = [];
    await readSse(body(text), (e) => plain.push(e));
    expect(plain.filter((e) => e.type === 'message-start')[1]).not.toHaveProperty('provenance');
  });

  it('a ChatStore reading a wire-2 answer holds every message with its provenance and the input count', async () => {
    const fetch = (async () => new Response(body(leanBody()), { headers: { 'content-type': 'text/event-stream', 'x-parlance-wire': '2', 'x-parlance-run-id': 'run_1' } })) as typeof globalThis.fetch;
    const store = new ChatStore({ api: '/api', fetch });
    await store.send('Hello');
    const answers = store.getSnapshot().thread.messages.filter((m) => m.role === 'assistant');
    expect(answers.map((m) => m.provenance)).toEqual([provenance, provenance]);
    expect(store.getSnapshot().status).toBe('ready');
  });

  it('skips heartbeats and event types it does not know, keeping ids', async () => {
    const seen: [string, string | undefined][] = [];
    const frame = formatSseFrame({ type: 'text-delta', id: 't', delta: 'a' }, 'r:0');
    await readSse(body(': ping\n\n', frame.slice(0, 9), frame.slice(9), 'event: brand-new\ndata: {"type":"brand-new"}\n\n'), (e, id) => seen.push([e.type, id]));
    expect(seen).toEqual([['text-delta', 'r:0']]);
  });

  it('turns a frame that is not JSON into an invalid_response error after keeping earlier events', async () => {
    const seen: string[] = [];
    const run = readSse(body(formatSseFrame({ type: 'step-start', step: 0 }), 'data: {nope\n\n'), (e) => seen.push(e.type));
    await expect(run).rejects.toMatchObject({ code: 'invalid_response' });
    expect(seen).toEqual(['step-start']);
  });
});

it('lists the server models with their capabilities nested, as the server sends them', async () => {
  const { fetch } = createMockServer();
  expect(await fetchModels({ api: '/api', fetch })).toEqual([{ id: 'fake-1', provider: 'fake', name: 'Fake One', capabilities: { input: ['text'] } }]);
});

it('maps an unreachable server to a retryable network error', async () => {
  const fetch = (() => Promise.reject(new TypeError('fetch failed'))) as typeof globalThis.fetch;
  await expect(fetchModels({ api: '/api', fetch })).rejects.toMatchObject({ code: 'network', retryable: true });
});

it('reads a /models body that is not the contract as no models, never a crash', async () => {
  for (const sent of ['null', '{"models":"nope"}', '{}']) {
    const fetch = (async () => new Response(sent, { status: 200, headers: { 'content-type': 'application/json' } })) as typeof globalThis.fetch;
    expect(await fetchModels({ api: '/api', fetch })).toEqual([]);
  }
});
