/**
 * Wire 2, the lean SSE wire: what a client that folds the stream (`@parlance/client`) needs, and
 * nothing it would fold away. A client asks for it in its `Accept` header (`text/event-stream;
 * wire=2`: a parameter, so the request stays CORS-simple); a server that does not know it sends
 * wire 1, which a wire-2 reader reads too. Against wire 1 (every event, an `id:` on every event but
 * most deltas, see wire.ts), wire 2:
 *
 * - leaves out `usage` events: they are merged into the response's `finish` (what folding each
 *   `usage` and then the `finish` gives: a merge keeps the latest value per count), and `chat-finish`
 *   carries the run's total. A report of the input count right after `message-start` (where
 *   providers that report it early send it) goes on that `message-start` as its `usage` (folded the
 *   same), so a UI shows the count and its cost while the answer streams, in one frame fewer: the
 *   start is held until the event after it, and the frame carries that event's id (an input count
 *   reported before the answer's content but not right after the start is sent as a `usage` event);
 * - leaves out `step-start` and `step-finish` (the fold ignores them; `finish` has the step's reason
 *   and usage);
 * - leaves out of `message-start` its `responseId`, and its `model` when `provenance` names the same
 *   model; of `finish`, the provider's `rawFinishReason` (the fold keeps neither on a message);
 * - leaves out of `message-start` a `provenance` equal to the previous start's on the same
 *   connection (a reader puts it back: `leanReader`);
 * - writes `id:` and `data:` without the optional space after the colon (the SSE spec strips one
 *   space there; a JSON text never starts with one): a byte per frame, ~3% of a short answer;
 * - writes an `id:` only on a response's first frame, on a frame whose event does not follow the
 *   previous frame's (after events left out), on every `DELTA_ID_EVERY`th event and on every `error`:
 *   any other frame without one is the event after the previous frame (`frameEventId`), and an
 *   `error` frame without one is not an event of the run (a store failure).
 *
 * The events a client folds are the same in both wires, so the thread it holds is the same.
 */
import type { Event } from './events.ts';
import type { Provenance } from './message.ts';
import { mergeUsage, type Usage } from './usage.ts';
import { DELTA_ID_EVERY, formatEventId } from './wire.ts';

/**
 * The newest SSE wire this package reads and writes (1: every event; 2: lean, see `leanWire`).
 *
 * @example
 * fetch('/api/chat', { method: 'POST', headers: { accept: `text/event-stream; wire=${WIRE_VERSION}` }, body });
 */
export const WIRE_VERSION = 2;

/**
 * The `Accept` header of a request for the lean wire.
 *
 * @example
 * const response = await fetch(url, { headers: { accept: LEAN_WIRE_ACCEPT } });
 */
export const LEAN_WIRE_ACCEPT = 'text/event-stream; wire=2';

/**
 * The wire a request asks for in its `Accept` header: 2 for `wire=2`, else 1.
 *
 * @example
 * const wire = wireOf(request.headers.get('accept')); // 1 | 2
 */
export function wireOf(accept: string | null | undefined): 1 | 2 {
  return accept && /(?:^|[;,\s])wire=2(?:$|[;,\s])/.test(accept) ? 2 : 1;
}

/**
 * One frame of wire 2: the event to send, whether its frame carries an `id:`, and the sequence that
 * id names (a `message-start` that carries the `usage` event after it is sent as that event's frame).
 *
 * @example
 * const text = frames.map((f) => formatSseFrame(f.event, f.id ? formatEventId(f.sequence) : undefined)).join('');
 */
export interface LeanFrame {
  event: Event;
  id: boolean;
  sequence: number;
}

/**
 * Writes one response of a run on wire 2: `frames` returns what to send for an event (none: left
 * out, or held: a `message-start` waits for the event after it), `flush` what is held once the
 * events end. One per response, fed the run's events in order.
 *
 * @example
 * const lean = leanWire();
 * for (const { seq, event } of stored) for (const f of lean.frames(event, seq)) write(formatLeanFrame(f));
 * for (const f of lean.flush()) write(formatLeanFrame(f));
 */
export function leanWire(): { frames(event: Event, sequence: number): LeanFrame[]; flush(): LeanFrame[] } {
  /** The sequence of the last event sent (-1: none yet). */
  let sent = -1;
  /** Usage of the current response from the `usage` events left out, merged into its `finish`. */
  let usage: Usage | undefined;
  /** The current response sent something past its start (content, a finish): a later input count is left out. */
  let answered = false;
  /** The provenance of the last `message-start` sent that had one. */
  let provenance: Provenance | undefined;
  /** A `message-start` (leaned) waiting for the event after it: a `usage` with an input count goes on it. */
  let held: { event: Extract<Event, { type: 'message-start' }>; sequence: number } | undefined;
  const lean = (event: Event): Event | undefined => {
    switch (event.type) {
      case 'usage':
        usage = mergeUsage(usage ?? {}, event.usage);
        // An input count before the answer's content that could not ride on the start (a warning came
        // between them) is sent as it came, so it still shows while the answer streams.
        return event.usage.inputTokens !== undefined && !answered ? event : undefined;
      case 'warning':
        return event;
      case 'step-start':
      case 'step-finish':
        return undefined;
      case 'message-start': {
        usage = undefined;
        answered = false;
        const { responseId: _responseId, ...rest } = event;
        if (rest.model !== undefined && rest.model === rest.provenance?.model) delete rest.model;
        // The provenance of the previous start on this connection, left out (the reader puts it back: `leanReader`).
        if (rest.provenance !== undefined) {
          if (provenance !== undefined && sameProvenance(provenance, rest.provenance)) delete rest.provenance;
          else provenance = rest.provenance;
        }
        return rest;
      }
      case 'finish': {
        const { rawFinishReason: _raw, ...rest } = event;
        if (usage) rest.usage = mergeUsage(usage, event.usage);
        usage = undefined;
        return rest;
      }
      default:
        answered = true;
        return event;
    }
  };
  const frame = (event: Event, sequence: number): LeanFrame => {
    const id = sent < 0 || sequence !== sent + 1 || sequence % DELTA_ID_EVERY === 0 || event.type === 'error';
    sent = sequence;
    return { event, id, sequence };
  };
  const release = (): LeanFrame[] => {
    if (!held) return [];
    const out = frame(held.event, held.sequence);
    held = undefined;
    return [out];
  };
  return {
    frames(event, sequence) {
      // The input count reported right after the start rides on it (one frame fewer per response).
      if (held && event.type === 'usage' && event.usage.inputTokens !== undefined && sequence === held.sequence + 1) {
        usage = mergeUsage({}, event.usage);
        const merged = frame({ ...held.event, usage: event.usage }, sequence);
        held = undefined;
        return [merged];
      }
      const out = release();
      const leaned = lean(event);
      if (leaned?.type === 'message-start' && leaned.usage === undefined) held = { event: leaned, sequence };
      else if (leaned) out.push(frame(leaned, sequence));
      return out;
    },
    flush: release,
  };
}

/**
 * A wire-2 frame as SSE text: `id:` (when it has one) and `data:` with no space after the colon.
 *
 * @example
 * for (const frame of lean.frames(event, seq)) text += formatLeanFrame(frame);
 */
export function formatLeanFrame(frame: LeanFrame): string {
  return `${frame.id ? `id:${formatEventId(frame.sequence)}\n` : ''}data:${JSON.stringify(frame.event)}\n\n`;
}

const sameProvenance = (a: Provenance, b: Provenance): boolean => {
  const keys = Object.keys(a) as (keyof Provenance)[];
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
};

/**
 * Reads one wire-2 connection back into the events the server stored: a `message-start` without a
 * `provenance` after one with it gets that one's (wire 2 leaves out a repeated provenance). One per
 * response body, fed its events in order.
 *
 * @example
 * const reader = leanReader();
 * parser.onEvent = (frame) => handle(reader.read(JSON.parse(frame.data)));
 */
export function leanReader(): { read(event: Event): Event } {
  let provenance: Provenance | undefined;
  return {
    read(event) {
      if (event.type !== 'message-start') return event;
      if (event.provenance !== undefined) provenance = event.provenance;
      else if (provenance !== undefined) return { ...event, provenance };
      return event;
    },
  };
}
