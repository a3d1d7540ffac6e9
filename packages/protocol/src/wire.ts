/**
 * The protocol over HTTP: Server-Sent Events, one protocol event per frame as JSON
 * in `data:`, with an `id:` of `<runId>:<sequence>` so a client can resume with
 * Last-Event-ID. JSON never contains a raw newline, so one `data:` line suffices.
 * Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import type { Event } from './events.ts';

/**
 * An SSE event id: the run and the event's sequence (resume sends it back as `Last-Event-ID`).
 *
 * @example
 * formatEventId('run_1', 41); // used as `id:` of the 42nd frame
 */
export function formatEventId(runId: string, sequence: number): string {
  return `${runId}:${sequence}`;
}

/**
 * Splits `<runId>:<sequence>`; undefined when the id is not one of ours. Strict: the
 * sequence is plain decimal digits with no sign, space, leading zero, hex or exponent
 * (`Number()` would read `run:` as 0 and `run: 3` or `run:0x3` as 3).
 *
 * @example
 * const from = parseEventId(request.headers.get('last-event-id'))?.sequence ?? -1;
 */
export function parseEventId(id: string | null | undefined): { runId: string; sequence: number } | undefined {
  if (!id) return undefined;
  const at = id.lastIndexOf(':');
  if (at <= 0) return undefined;
  const digits = id.slice(at + 1);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(digits)) return undefined;
  const sequence = Number(digits);
  if (!Number.isSafeInteger(sequence)) return undefined;
  return { runId: id.slice(0, at), sequence };
}

/**
 * One event as an SSE frame (`id:` + `data:` lines).
 *
 * @example
 * controller.enqueue(encoder.encode(formatSseFrame(event, formatEventId(runId, sequence))));
 */
export function formatSseFrame(event: Event, id?: string): string {
  if (id !== undefined && /[\r\n]/.test(id)) throw new TypeError('An SSE id must not contain CR or LF');
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
