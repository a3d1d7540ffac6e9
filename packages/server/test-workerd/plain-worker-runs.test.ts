// The README quick start on a plain Worker (memory store, no Durable Object): resume and
// cancel arrive as other requests. workerd lets no request touch I/O another request
// started ("Cannot perform I/O on behalf of a different request"), so a cancel must reach
// the run through the store, and the run's own request aborts its upstream.
import { frameEventId } from '@parlance/protocol';
import { SELF } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { errors, upstreams } from './worker.ts';

const BASE = 'https://worker.example';

async function* events(res: Response): AsyncGenerator<{ id: string; data: { type: string; delta?: string; haltReason?: string } }> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let last: string | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!data) continue;
      const event = JSON.parse(data);
      // A delta without an id follows the frame before it (see the protocol's frameEventId).
      const id = frameEventId(/^id: (.*)$/m.exec(frame)?.[1], event, last);
      if (id) yield { id: (last = id), data: event };
    }
  }
}

function post(clientRequestId: string) {
  return SELF.fetch(`${BASE}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock:stream', clientRequestId, messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }),
  });
}

it('a cancel sent as another request stops the upstream the run is reading: one chat-finish cancelled, no 500', async () => {
  const res = await post('cancel-1');
  const runId = res.headers.get('x-parlance-run-id')!;
  const seen = [];
  let cancelled = false;
  for await (const frame of events(res)) {
    seen.push(frame.data);
    if (frame.data.type === 'text-delta' && !cancelled) {
      cancelled = true;
      const cancel = await SELF.fetch(`${BASE}/runs/${runId}/cancel`, { method: 'POST' });
      expect(cancel.status).toBe(202);
    }
  }
  expect(seen.filter((e) => e.type === 'chat-finish')).toEqual([{ type: 'chat-finish', haltReason: 'cancelled', usage: {} }]);
  expect(upstreams.get(runId)).toEqual({ cancelled: true });
  expect(seen.filter((e) => e.type === 'text-delta').length).toBeLessThan(100);
  expect(errors).toEqual([]);
});

it('another request resumes a live run from Last-Event-ID: no event lost or repeated', async () => {
  const res = await post('resume-1');
  const runId = res.headers.get('x-parlance-run-id')!;
  const first = [];
  for await (const frame of events(res)) {
    first.push(frame);
    if (first.filter((f) => f.data.type === 'text-delta').length === 3) break;
  }
  const resumed = await SELF.fetch(`${BASE}/runs/${runId}/events`, { headers: { 'Last-Event-ID': first.at(-1)!.id } });
  expect(resumed.status).toBe(200);
  const rest = [];
  for await (const frame of events(resumed)) rest.push(frame);
  const ids = [...first, ...rest].map((f) => f.id);
  expect(ids).toEqual(ids.map((_, i) => String(i)));
  const text = [...first, ...rest].map((f) => f.data.delta ?? '').join('');
  expect(text).toBe(Array.from({ length: 100 }, (_, i) => `w${i} `).join(''));
  expect(rest.at(-1)!.data).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
});
