/**
 * A finished run's events in a compact form that still serves resume: runs of consecutive
 * deltas of one block (`{ type, id, delta }` and nothing else) are kept as one string plus
 * where each delta ends, every other event as it was. A 1,000-delta reply is then one string
 * of its text and a small Uint32Array instead of 1,000 event objects and 1,000 strings; any
 * event is rebuilt by its sequence on read (binary search over the segments).
 */
import type { Event } from '@parlance/protocol';

type DeltaType = 'text-delta' | 'reasoning-delta' | 'tool-call-delta';
type Segment = { start: number; event: Event } | { start: number; type: DeltaType; id: string; text: string; ends: Uint32Array };

const DELTA_TYPES: ReadonlySet<string> = new Set<DeltaType>(['text-delta', 'reasoning-delta', 'tool-call-delta']);

/** A delta with exactly the keys a packed run rebuilds (anything else, e.g. providerState, stays whole). */
function plainDelta(event: Event): event is Extract<Event, { type: DeltaType }> {
  if (!DELTA_TYPES.has(event.type)) return false;
  let keys = 0;
  for (const _ in event) keys++;
  return keys === 3 && typeof (event as { id?: unknown }).id === 'string' && typeof (event as { delta?: unknown }).delta === 'string';
}

export class PackedEvents {
  readonly length: number;
  #segments: Segment[];

  private constructor(segments: Segment[], length: number) {
    this.#segments = segments;
    this.length = length;
  }

  static pack(events: readonly Event[]): PackedEvents {
    const segments: Segment[] = [];
    for (let i = 0; i < events.length; ) {
      const event = events[i]!;
      if (!plainDelta(event)) {
        segments.push({ start: i, event });
        i++;
        continue;
      }
      const parts: string[] = [];
      const ends: number[] = [];
      let end = 0;
      let j = i;
      for (; j < events.length; j++) {
        const next = events[j]!;
        if (!plainDelta(next) || next.type !== event.type || next.id !== event.id) break;
        parts.push(next.delta);
        ends.push((end += next.delta.length));
      }
      segments.push({ start: i, type: event.type, id: event.id, text: parts.join(''), ends: Uint32Array.from(ends) });
      i = j;
    }
    return new PackedEvents(segments, events.length);
  }

  /** The event with this sequence, rebuilt as it was stored. */
  at(seq: number): Event | undefined {
    if (seq < 0 || seq >= this.length) return undefined;
    let lo = 0;
    let hi = this.#segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#segments[mid]!.start <= seq) lo = mid;
      else hi = mid - 1;
    }
    const segment = this.#segments[lo]!;
    if ('event' in segment) return segment.event;
    const k = seq - segment.start;
    const from = k === 0 ? 0 : segment.ends[k - 1]!;
    return { type: segment.type, id: segment.id, delta: segment.text.slice(from, segment.ends[k]!) } as Event;
  }

  slice(from: number, to: number): Event[] {
    const out: Event[] = [];
    for (let seq = Math.max(0, from); seq < Math.min(to, this.length); seq++) out.push(this.at(seq)!);
    return out;
  }
}
