import { describe, expect, it } from 'vitest';
import type { Event } from './events.ts';
import { createFoldState, reduceEvents, type FoldState } from './fold.ts';
import { leanWire, wireOf } from './lean-wire.ts';
import { DELTA_ID_EVERY, formatEventId, frameEventId, parseEventId } from './wire.ts';

const provenance = { provider: 'anthropic', model: 'm1', dialect: 'anthropic_messages' } as const;

/** A tool round trip as the engine emits it: steps, usage events, a call, a result, long text, an error report. */
function run(deltas: number): Event[] {
  const text: Event[] = Array.from({ length: deltas }, (_, i): Event => ({ type: 'text-delta', id: 't0', delta: `w${i} ` }));
  return [
    { type: 'step-start', step: 0 },
    { type: 'message-start', messageId: 'a1', responseId: 'resp_1', model: 'm1', provenance },
    { type: 'usage', usage: { inputTokens: 5, outputTokens: 0 } },
    { type: 'tool-call-start', id: 'c1', name: 'weather' },
    { type: 'tool-call-delta', id: 'c1', delta: '{"city":"Rome"}' },
    { type: 'tool-call-end', id: 'c1', input: { city: 'Rome' }, signature: 'p2.k.s1' },
    { type: 'usage', usage: { outputTokens: 8 } },
    { type: 'finish', finishReason: 'tool-calls', usage: { outputTokens: 8 }, rawFinishReason: 'tool_use' },
    { type: 'tool-result', toolCallId: 'c1', name: 'weather', output: { celsius: 21 }, messageId: 'r1', signature: 'p2.k.s2' },
    { type: 'step-finish', step: 0, finishReason: 'tool-calls', usage: { inputTokens: 5, outputTokens: 8 } },
    { type: 'step-start', step: 1 },
    { type: 'message-start', messageId: 'a2', responseId: 'resp_2', model: 'other', provenance },
    { type: 'usage', usage: { inputTokens: 7, outputTokens: 0 } },
    { type: 'text-start', id: 't0' },
    ...text,
    { type: 'error', code: 'overloaded', message: 'busy', retryable: true },
    { type: 'text-end', id: 't0' },
    { type: 'usage', usage: { outputTokens: deltas } },
    { type: 'finish', finishReason: 'stop', usage: {} },
    { type: 'step-finish', step: 1, finishReason: 'stop', usage: { inputTokens: 7, outputTokens: deltas } },
    { type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 12, outputTokens: 8 + deltas } },
  ];
}

/** What a wire-2 reader sees of the run from `from` on: each frame's event and the id it reads for it. */
function read(events: Event[], from = 0): { event: Event; id: string | undefined; seq: number }[] {
  const lean = leanWire();
  const out: { event: Event; id: string | undefined; seq: number }[] = [];
  let last: string | undefined;
  for (let seq = from; seq < events.length; seq++) {
    const frame = lean.frame(events[seq]!, seq);
    if (!frame) continue;
    const id = frameEventId(frame.id ? formatEventId(seq) : undefined, frame.event, last);
    if (id !== undefined) last = id;
    out.push({ event: JSON.parse(JSON.stringify(frame.event)), id, seq });
  }
  return out;
}

const fold = (events: Event[]): FoldState => events.reduce<FoldState>((state, event) => reduceEvents(state, event), createFoldState());

describe('the lean wire (wire 2)', () => {
  it.each([
    ['text/event-stream; wire=2', 2],
    ['text/event-stream;wire=2', 2],
    ['application/json, text/event-stream; wire=2', 2],
    ['text/event-stream', 1],
    ['text/event-stream; wire=22', 1],
    ['text/event-stream; nowire=2', 1],
    ['', 1],
    [null, 1],
    [undefined, 1],
  ])('wireOf(%j) is %d', (accept, wire) => {
    expect(wireOf(accept)).toBe(wire);
  });

  it.each([10, DELTA_ID_EVERY * 3 + 5])('a run of %d deltas folds to the same messages and usage; every frame reads its own id', (deltas) => {
    const events = run(deltas);
    const frames = read(events);
    for (const { id, seq } of frames) expect(parseEventId(id)?.sequence).toBe(seq);
    const lean = fold(frames.map((f) => f.event));
    const full = fold(events);
    expect(lean.messages).toEqual(full.messages);
    expect(lean.totalUsage).toEqual(full.totalUsage);
    expect(lean.usage).toEqual(full.usage);
    expect(lean.haltReason).toBe('completed');
    // Left out: usage without an input count, steps, the response id, a model provenance names,
    // the raw finish reason. The input count is sent, so it (and its cost) shows while the answer streams.
    const types = frames.map((f) => f.event.type);
    expect(frames.filter((f) => f.event.type === 'usage').map((f) => f.event)).toEqual([
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 0 } },
      { type: 'usage', usage: { inputTokens: 7, outputTokens: 0 } },
    ]);
    const lastFinish = frames.map((f) => f.event.type).lastIndexOf('finish');
    const beforeFinish = frames.slice(0, lastFinish);
    expect(fold(beforeFinish.map((f) => f.event)).usage).toMatchObject({ inputTokens: 7 });
    expect(types).not.toContain('step-start');
    expect(types).not.toContain('step-finish');
    const starts = frames.filter((f) => f.event.type === 'message-start').map((f) => f.event);
    expect(starts).toEqual([
      { type: 'message-start', messageId: 'a1', provenance },
      { type: 'message-start', messageId: 'a2', model: 'other', provenance },
    ]);
    expect(frames.find((f) => f.event.type === 'finish')?.event).toEqual({ type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 5, outputTokens: 8 } });
  });

  it('writes ids only where a reader cannot count: first, after a gap, every DELTA_ID_EVERY-th, every error', () => {
    const events = run(DELTA_ID_EVERY * 2);
    const lean = leanWire();
    const named: number[] = [];
    for (let seq = 0; seq < events.length; seq++) if (lean.frame(events[seq]!, seq)?.id) named.push(seq);
    const error = events.findIndex((e) => e.type === 'error');
    expect(named[0]).toBe(1);
    expect(named).toContain(error);
    expect(named).toContain(DELTA_ID_EVERY);
    // Wire 1 names every event but most deltas: about one frame in four of this run.
    expect(named.length).toBeLessThan(14);
  });

  it('a resumed response (from any event) reads the same ids and folds to the same end', () => {
    const events = run(100);
    const all = read(events);
    for (const from of [1, 5, 9, 12, 40, events.length - 3]) {
      const resumed = read(events, from);
      expect(resumed.map((f) => f.id)).toEqual(all.filter((f) => f.seq >= from).map((f) => f.id));
    }
  });
});
