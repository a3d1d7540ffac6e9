import { type Event, frameEventId } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from './run-store.ts';
import { sseResponse } from './sse.ts';

const delta = (i: number): Event => ({ type: 'text-delta', id: 't', delta: `w${i} ` });

/** The raw chunks of a response body, as the network would write them. */
async function chunks(response: Response): Promise<string[]> {
  const out: string[] = [];
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(decoder.decode(value));
  }
}

function parse(text: string): { id: string | undefined; event: Event }[] {
  let last: string | undefined;
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((raw) => {
      const event = JSON.parse(/^data: (.*)$/m.exec(raw)![1]!) as Event;
      const id = frameEventId(/^id: (.*)$/m.exec(raw)?.[1], event, last);
      last = id ?? last;
      return { id, event };
    });
}

describe('the SSE response', () => {
  it('sends the first frame alone, then frames that are ready in the same turn as one chunk, every event once and in order', async () => {
    async function* follow(): AsyncGenerator<StoredEvent> {
      yield { seq: 0, event: { type: 'text-start', id: 't' } };
      for (let i = 1; i <= 300; i++) yield { seq: i, event: delta(i) };
      // A later turn: a new chunk.
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield { seq: 301, event: { type: 'text-end', id: 't' } };
    }
    const body = await chunks(sseResponse(follow, { runId: 'run_1', heartbeatMs: 60_000 }));
    expect(parse(body[0]!)).toEqual([{ id: '0', event: { type: 'text-start', id: 't' } }]);
    expect(body.length).toBeLessThan(10);
    const frames = parse(body.join(''));
    expect(frames.map((f) => f.id)).toEqual(Array.from({ length: 302 }, (_, i) => String(i)));
    expect(frames.slice(1, -1).map((f) => f.event)).toEqual(Array.from({ length: 300 }, (_, i) => delta(i + 1)));
    expect(body.at(-1)).toContain('"type":"text-end"');
  });

  it('keeps the frames gathered before a store failure, then ends with the typed frame', async () => {
    async function* follow(): AsyncGenerator<StoredEvent> {
      yield { seq: 0, event: { type: 'text-start', id: 't' } };
      yield { seq: 1, event: delta(1) };
      yield { seq: 2, event: delta(2) };
      throw new Error('store gone');
    }
    const frames = parse((await chunks(sseResponse(follow, { runId: 'run_1', heartbeatMs: 60_000 }))).join(''));
    expect(frames.map((f) => f.event.type)).toEqual(['text-start', 'text-delta', 'text-delta', 'error']);
    expect(frames.at(-1)).toEqual({ id: undefined, event: { type: 'error', code: 'store_unavailable', message: 'The run store is not available', retryable: true } });
  });
});
