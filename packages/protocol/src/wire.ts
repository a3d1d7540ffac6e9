/**
 * The protocol over HTTP: Server-Sent Events, one protocol event per frame as JSON
 * in `data:` (the type is in the JSON: no `event:` line), with an `id:` holding the
 * event's sequence in its run, so a client can resume with Last-Event-ID. The run is
 * named by the URL (`GET /runs/:runId/events`) and the `X-Parlance-Run-Id` header, so
 * the id carries the sequence alone (ids of older versions, `<runId>:<sequence>`, are
 * still read). JSON never contains a raw newline, so one `data:` line suffices.
 *
 * Deltas are most of a stream, so most of them go without an `id:`: a delta frame
 * without one is the event right after the previous frame (`frameEventId`). The
 * server writes an id on every other event, on the first frame of a response, and
 * on every `DELTA_ID_EVERY`th event, so a bare EventSource resumes at most that many
 * events back (and a client that counts, like `@parlance/client`, exactly).
 * Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import type { Event } from './events.ts';

/**
 * An SSE event id: the event's sequence in its run (resume sends it back as `Last-Event-ID`).
 *
 * @example
 * formatEventId(41); // "41", the `id:` of the 42nd frame
 */
export function formatEventId(sequence: number): string {
  return String(sequence);
}

/**
 * Reads an event id: a sequence (`41`), or the `<runId>:<sequence>` of older versions (then
 * `runId` is set, and a server checks it names the run resumed). Undefined when the id is not
 * one of ours. Strict: the sequence is plain decimal digits with no sign, space, leading zero,
 * hex or exponent (`Number()` would read `run:` as 0 and `run: 3` or `run:0x3` as 3).
 *
 * @example
 * const from = parseEventId(request.headers.get('last-event-id'))?.sequence ?? -1;
 */
export function parseEventId(id: string | null | undefined): { runId?: string; sequence: number } | undefined {
  if (!id) return undefined;
  const at = id.lastIndexOf(':');
  if (at === 0) return undefined;
  const digits = at < 0 ? id : id.slice(at + 1);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(digits)) return undefined;
  const sequence = Number(digits);
  if (!Number.isSafeInteger(sequence)) return undefined;
  return at < 0 ? { sequence } : { runId: id.slice(0, at), sequence };
}

/**
 * One event as an SSE frame (`id:` + `data:` lines; the type is in the data).
 *
 * @example
 * controller.enqueue(encoder.encode(formatSseFrame(event, formatEventId(sequence))));
 */
export function formatSseFrame(event: Event, id?: string): string {
  if (id !== undefined && /[\r\n]/.test(id)) throw new TypeError('An SSE id must not contain CR or LF');
  return `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(event)}\n\n`;
}

/**
 * A delta frame carries an `id:` at least this often (bounds what a bare EventSource replays on resume).
 *
 * @example
 * if (sequence % DELTA_ID_EVERY === 0) frame = `id: ${formatEventId(sequence)}\n${frame}`;
 */
export const DELTA_ID_EVERY = 64;

const isDelta = (type: string) => type === 'text-delta' || type === 'reasoning-delta' || type === 'tool-call-delta';

/**
 * Whether the server writes this event's id on its frame: always, except on a delta that is
 * not its response's first frame nor a multiple of `DELTA_ID_EVERY`.
 *
 * @example
 * const id = sendsEventId(event, seq, first) ? formatEventId(seq) : undefined;
 */
export function sendsEventId(event: Event, sequence: number, firstInResponse: boolean): boolean {
  return firstInResponse || !isDelta(event.type) || sequence % DELTA_ID_EVERY === 0;
}

/**
 * The id of a frame as read: its own `id:`, or for a frame sent without one, the id after the
 * previous frame's (`previous`, the last id this reader assigned). Undefined for an `error` frame
 * without an id (out-of-band: a store failure, not an event of the run). Reads both wires: on wire 1
 * only deltas come without an id; on wire 2 (lean-wire.ts) any event that follows the previous frame's.
 *
 * @example
 * let last: string | undefined;
 * parser.onEvent = (frame) => { const event = JSON.parse(frame.data); last = frameEventId(frame.id, event, last) ?? last; };
 */
export function frameEventId(id: string | undefined, event: Pick<Event, 'type'>, previous: string | undefined): string | undefined {
  if (id) return id;
  if (event.type === 'error') return undefined;
  const last = parseEventId(previous);
  return last && formatEventId(last.sequence + 1);
}
