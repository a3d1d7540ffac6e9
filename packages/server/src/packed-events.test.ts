import type { Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { PackedEvents } from './packed-events.ts';

describe('a finished run packed', () => {
  it('gives back every event as stored, by sequence, including deltas of several blocks, empty and multibyte ones, and deltas with extra fields', () => {
    const events: Event[] = [
      { type: 'message-start', messageId: 'm' },
      { type: 'reasoning-start', id: 'r' },
      ...['th', 'ink', ''].map((delta): Event => ({ type: 'reasoning-delta', id: 'r', delta })),
      { type: 'text-start', id: 't' },
      ...['Grüß', ' 🌍', '', 'x'].map((delta): Event => ({ type: 'text-delta', id: 't', delta })),
      { type: 'text-delta', id: 'u', delta: 'other block' },
      { type: 'text-delta', id: 't', delta: 'kept whole', providerState: { a: 1 } } as Event,
      { type: 'tool-call-start', id: 'c', name: 'f' },
      ...['{"a"', ':1}'].map((delta): Event => ({ type: 'tool-call-delta', id: 'c', delta })),
      { type: 'finish', finishReason: 'stop', usage: {} },
    ];
    const packed = PackedEvents.pack(events);
    expect(packed.length).toBe(events.length);
    expect(packed.slice(0, events.length)).toEqual(events);
    for (let seq = 0; seq < events.length; seq++) expect(packed.at(seq), `seq ${seq}`).toEqual(events[seq]);
    expect(packed.slice(7, 9)).toEqual(events.slice(7, 9));
    expect(packed.at(-1)).toBeUndefined();
    expect(packed.at(events.length)).toBeUndefined();
  });
});
