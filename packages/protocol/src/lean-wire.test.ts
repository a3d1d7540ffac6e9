import { describe, expect, it } from 'vitest';
import type { Event } from './events.ts';
import { createFoldState, reduceEvents, type FoldState } from './fold.ts';
import { formatLeanFrame, type LeanFrame, leanReader, leanWire, wireOf } from './lean-wire.ts';
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
  const reader = leanReader();
  const out: { event: Event; id: string | undefined; seq: number }[] = [];
  let last: string | undefined;
  const add = (frame: LeanFrame) => {
    const id = frameEventId(frame.id ? formatEventId(frame.sequence) : undefined, frame.event, last);
    if (id !== undefined) last = id;
    out.push({ event: reader.read(JSON.parse(JSON.stringify(frame.event))), id, seq: frame.sequence });
  };
  for (let seq = from; seq < events.length; seq++) for (const frame of lean.frames(events[seq]!, seq)) add(frame);
  for (const frame of lean.flush()) add(frame);
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
    // Left out: usage events, steps, the response id, a model provenance names, the raw finish reason.
    // The input count rides on message-start, so it (and its cost) shows while the answer streams.
    const types = frames.map((f) => f.event.type);
    expect(types).not.toContain('usage');
    const lastFinish = frames.map((f) => f.event.type).lastIndexOf('finish');
    const beforeFinish = frames.slice(0, lastFinish);
    expect(fold(beforeFinish.map((f) => f.event)).usage).toMatchObject({ inputTokens: 7 });
    expect(types).not.toContain('step-start');
    expect(types).not.toContain('step-finish');
    const starts = frames.filter((f) => f.event.type === 'message-start').map((f) => f.event);
    expect(starts).toEqual([
      { type: 'message-start', messageId: 'a1', provenance, usage: { inputTokens: 5, outputTokens: 0 } },
      { type: 'message-start', messageId: 'a2', model: 'other', provenance, usage: { inputTokens: 7, outputTokens: 0 } },
    ]);
    // A start's frame carries the id of the usage event it took on.
    expect(frames.filter((f) => f.event.type === 'message-start').map((f) => f.seq)).toEqual([2, 12]);
    expect(frames.find((f) => f.event.type === 'finish')?.event).toEqual({ type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 5, outputTokens: 8 } });
  });

  it('writes ids only where a reader cannot count: first, after a gap, every DELTA_ID_EVERY-th, every error', () => {
    const events = run(DELTA_ID_EVERY * 2);
    const lean = leanWire();
    const named: number[] = [];
    for (let seq = 0; seq < events.length; seq++) for (const frame of lean.frames(events[seq]!, seq)) if (frame.id) named.push(frame.sequence);
    const error = events.findIndex((e) => e.type === 'error');
    expect(named[0]).toBe(2);
    expect(named).toContain(error);
    expect(named).toContain(DELTA_ID_EVERY);
    // Wire 1 names every event but most deltas: about one frame in four of this run.
    expect(named.length).toBeLessThan(14);
  });

  it('a resumed response (after any id a reader read) reads the same ids and folds to the same end', () => {
    const events = run(100);
    const all = read(events);
    for (const from of [0, 1, ...all.map((f) => f.seq + 1)]) {
      const resumed = read(events, from);
      expect(resumed.map((f) => f.id)).toEqual(all.filter((f) => f.seq >= from).map((f) => f.id));
    }
  });

  it.each<[string, Event[], string[]]>([
    ['a usage without an input count', [{ type: 'usage', usage: { outputTokens: 1 } }], ['message-start']],
    ['a text block', [{ type: 'text-start', id: 't' }], ['message-start', 'text-start']],
    ['an error', [{ type: 'error', code: 'overloaded', message: 'busy', retryable: true }], ['message-start', 'error']],
    ['the end of the events', [], ['message-start']],
  ])('a start followed by %s is sent as it came, with its own id', (_, after, types) => {
    const events: Event[] = [{ type: 'message-start', messageId: 'a1', provenance }, ...after];
    const frames = read(events);
    expect(frames.map((f) => f.event.type)).toEqual(types);
    expect(frames[0]).toMatchObject({ seq: 0, id: formatEventId(0) });
    expect(frames[0]!.event).toEqual({ type: 'message-start', messageId: 'a1', provenance });
    expect(fold(frames.map((f) => f.event)).messages).toEqual(fold(events).messages);
  });

  it('sends an input count that could not ride on the start (a warning between) while no content came; leaves it out after content', () => {
    const usage = { inputTokens: 5, outputTokens: 0 };
    const early: Event[] = [
      { type: 'message-start', messageId: 'a1', provenance },
      { type: 'warning', setting: 'temperature', message: 'not supported' },
      { type: 'usage', usage },
      { type: 'text-start', id: 't' },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 3 } },
      { type: 'text-end', id: 't' },
    ];
    const frames = read(early);
    expect(frames.map((f) => f.event.type)).toEqual(['message-start', 'warning', 'usage', 'text-start', 'text-end']);
    expect(fold(frames.slice(0, 3).map((f) => f.event)).usage).toEqual(usage);
  });

  it('sends a provenance once per connection while it stays the same; the reader puts it back', () => {
    const other = { provider: 'openai', model: 'm2', dialect: 'openai_completions' } as const;
    const events: Event[] = [
      { type: 'message-start', messageId: 'a1', provenance },
      { type: 'message-start', messageId: 'a2', provenance: { ...provenance } },
      { type: 'message-start', messageId: 'a3', provenance: other },
      { type: 'message-start', messageId: 'a4' },
      { type: 'message-start', messageId: 'a5', provenance },
    ];
    const lean = leanWire();
    const sent = [...events.flatMap((e, seq) => lean.frames(e, seq)), ...lean.flush()].map((f) => f.event);
    expect(sent.map((e) => (e.type === 'message-start' ? e.provenance?.model : 'x'))).toEqual(['m1', undefined, 'm2', undefined, 'm1']);
    const reader = leanReader();
    // What the server stored, but a start that had none reads the one before it (a runner that sets none sets none on any).
    expect(sent.map((e) => reader.read(e))).toEqual([events[0], events[1], events[2], { ...events[3], provenance: other }, events[4]]);
  });

  it('formats a frame with no space after the colons, which an SSE reader strips anyway', () => {
    expect(formatLeanFrame({ event: { type: 'text-start', id: 't' }, id: true, sequence: 7 })).toBe('id:7\ndata:{"type":"text-start","id":"t"}\n\n');
    expect(formatLeanFrame({ event: { type: 'text-start', id: 't' }, id: false, sequence: 8 })).toBe('data:{"type":"text-start","id":"t"}\n\n');
  });

  it('folds a start carrying usage as the start and then that usage', () => {
    const usage = { inputTokens: 9, cacheReadTokens: 4, outputTokens: 0 };
    const carried = fold([{ type: 'message-start', messageId: 'a', usage }, { type: 'finish', finishReason: 'stop', usage: { outputTokens: 3 } }]);
    const separate = fold([{ type: 'message-start', messageId: 'a' }, { type: 'usage', usage }, { type: 'finish', finishReason: 'stop', usage: { outputTokens: 3 } }]);
    expect(carried.usage).toEqual({ inputTokens: 9, cacheReadTokens: 4, outputTokens: 3 });
    expect(carried.usage).toEqual(separate.usage);
    expect(carried.totalUsage).toEqual(separate.totalUsage);
    expect(carried.messages).toEqual(separate.messages);
  });
});
