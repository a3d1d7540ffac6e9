/**
 * Wire 2, the lean SSE wire: what a client that folds the stream (`@parlance/client`) needs, and
 * nothing it would fold away. A client asks for it in its `Accept` header (`text/event-stream;
 * wire=2`: a parameter, so the request stays CORS-simple); a server that does not know it sends
 * wire 1, which a wire-2 reader reads too. Against wire 1 (every event, an `id:` on every event but
 * most deltas, see wire.ts), wire 2:
 *
 * - leaves out `usage` events without an input count (the growing output counts): those are
 *   merged into the response's `finish` (what folding each `usage` and then the `finish` gives: a
 *   merge keeps the latest value per count), and `chat-finish` carries the run's total. A report of
 *   the input count is sent, so a UI shows it and its cost while the answer streams (providers
 *   report it once, at the start or the end); decided per event, so a resumed reader gets the same frames;
 * - leaves out `step-start` and `step-finish` (the fold ignores them; `finish` has the step's reason
 *   and usage);
 * - leaves out of `message-start` its `responseId`, and its `model` when `provenance` names the same
 *   model; of `finish`, the provider's `rawFinishReason` (the fold keeps neither on a message);
 * - writes an `id:` only on a response's first frame, on a frame whose event does not follow the
 *   previous frame's (after events left out), on every `DELTA_ID_EVERY`th event and on every `error`:
 *   any other frame without one is the event after the previous frame (`frameEventId`), and an
 *   `error` frame without one is not an event of the run (a store failure).
 *
 * The events a client folds are the same in both wires, so the thread it holds is the same.
 */
import type { Event } from './events.ts';
import { mergeUsage, type Usage } from './usage.ts';
import { DELTA_ID_EVERY } from './wire.ts';

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
 * Writes one response of a run on wire 2: `frame` returns what to send for an event (`undefined`:
 * left out) and whether its frame carries an `id:`. One per response, fed the run's events in order.
 *
 * @example
 * const lean = leanWire();
 * for (const { seq, event } of stored) {
 *   const out = lean.frame(event, seq);
 *   if (out) write(formatSseFrame(out.event, out.id ? formatEventId(seq) : undefined));
 * }
 */
export function leanWire(): { frame(event: Event, sequence: number): { event: Event; id: boolean } | undefined } {
  /** The sequence of the last event sent (-1: none yet). */
  let sent = -1;
  /** Usage of the current response from the `usage` events left out, merged into its `finish`. */
  let usage: Usage | undefined;
  const lean = (event: Event): Event | undefined => {
    switch (event.type) {
      case 'usage':
        usage = mergeUsage(usage ?? {}, event.usage);
        return event.usage.inputTokens === undefined ? undefined : event;
      case 'step-start':
      case 'step-finish':
        return undefined;
      case 'message-start': {
        usage = undefined;
        const { responseId: _responseId, ...rest } = event;
        if (rest.model !== undefined && rest.model === rest.provenance?.model) delete rest.model;
        return rest;
      }
      case 'finish': {
        const { rawFinishReason: _raw, ...rest } = event;
        if (usage) rest.usage = mergeUsage(usage, event.usage);
        usage = undefined;
        return rest;
      }
      default:
        return event;
    }
  };
  return {
    frame(event, sequence) {
      const out = lean(event);
      if (!out) return undefined;
      const id = sent < 0 || sequence !== sent + 1 || sequence % DELTA_ID_EVERY === 0 || out.type === 'error';
      sent = sequence;
      return { event: out, id };
    },
  };
}
