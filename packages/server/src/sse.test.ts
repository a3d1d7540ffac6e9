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
      const event = JSON.parse(/^data: ?(.*)$/m.exec(raw)![1]!) as Event;
      const id = frameEventId(/^id: ?(.*)$/m.exec(raw)?.[1], event, last);
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

  it('wire 2: leaves out what the client folds away (a run that starts with them too), ids only where a reader cannot count, the same events folded', async () => {
    const stored: Event[] = [
      { type: 'step-start', step: 0 },
      { type: 'message-start', messageId: 'a1', responseId: 'resp_1', model: 'm', provenance: { provider: 'p', model: 'm', dialect: 'openai_completions' } },
      { type: 'text-start', id: 't' },
      ...Array.from({ length: 100 }, (_, i) => delta(i)),
      { type: 'usage', usage: { outputTokens: 100 } },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 100 } },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 100 }, rawFinishReason: 'stop' },
      { type: 'step-finish', step: 0, finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 100 } },
      { type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 5, outputTokens: 100 } },
    ];
    async function* follow(): AsyncGenerator<StoredEvent> {
      for (let seq = 0; seq < stored.length; seq++) {
        if (seq === 50) await new Promise((resolve) => setTimeout(resolve, 5));
        yield { seq, event: stored[seq]! };
      }
    }
    const response = sseResponse(follow, { runId: 'run_1', heartbeatMs: 60_000, wire: 2 });
    expect(response.headers.get('x-parlance-wire')).toBe('2');
    const body = (await chunks(response)).join('');
    const frames = parse(body);
    // Every frame reads the sequence of the event it carries.
    // Left out: steps and usage (merged into the finish; an input count right after the start rides on it, below).
    const leftOut = (event: Event) => event.type === 'step-start' || event.type === 'step-finish' || event.type === 'usage';
    const sent = stored.flatMap((event, seq) => (leftOut(event) ? [] : [seq]));
    expect(frames.map((f) => f.id)).toEqual(sent.map(String));
    expect(frames[0]!.event).toEqual({ type: 'message-start', messageId: 'a1', provenance: { provider: 'p', model: 'm', dialect: 'openai_completions' } });
    // The first, the 64th (DELTA_ID_EVERY), and the two that follow an event left out.
    expect(body.match(/^id:\d+/gm)).toEqual(['id:1', 'id:64', 'id:105', 'id:108']);
    expect(body.match(/^data:\{/gm)).toHaveLength(frames.length);
    expect(frames.find((f) => f.event.type === 'finish')!.event).toEqual({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 100 } });
    // Wire 1 sends all of it, in more bytes.
    const full = (await chunks(sseResponse(follow, { runId: 'run_1', heartbeatMs: 60_000 }))).join('');
    expect(parse(full)).toHaveLength(stored.length);
    expect(body.length).toBeLessThan(full.length - 250);
  });

  it('wire 2: an input count reported right after the start rides on it (one frame, the usage event\'s id), also when the run ends there', async () => {
    const provenance = { provider: 'p', model: 'm', dialect: 'anthropic_messages' } as const;
    const stored: Event[] = [
      { type: 'step-start', step: 0 },
      { type: 'message-start', messageId: 'a1', provenance },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 0 } },
      { type: 'text-start', id: 't' },
      delta(0),
      { type: 'text-end', id: 't' },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 1 } },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 1 } },
      { type: 'message-start', messageId: 'a2', provenance },
    ];
    async function* follow(): AsyncGenerator<StoredEvent> {
      for (let seq = 0; seq < stored.length; seq++) yield { seq, event: stored[seq]! };
    }
    const frames = parse((await chunks(sseResponse(follow, { runId: 'run_1', heartbeatMs: 60_000, wire: 2 }))).join(''));
    expect(frames.map((f) => [f.id, f.event.type])).toEqual([
      ['2', 'message-start'],
      ['3', 'text-start'],
      ['4', 'text-delta'],
      ['5', 'text-end'],
      ['7', 'finish'],
      ['8', 'message-start'],
    ]);
    expect(frames[0]!.event).toEqual({ type: 'message-start', messageId: 'a1', provenance, usage: { inputTokens: 5, outputTokens: 0 } });
    // The same provenance again is left out (a wire-2 reader puts it back: the protocol's leanReader).
    expect(frames.at(-1)!.event).toEqual({ type: 'message-start', messageId: 'a2' });
  });
});

