import { formatSseFrame } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
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

describe('readSse', () => {
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
