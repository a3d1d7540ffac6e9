/**
 * The protocol over HTTP: Server-Sent Events, one protocol event per frame as JSON
 * in `data:`, with an `id:` of `<runId>:<sequence>` so a client can resume with
 * Last-Event-ID. JSON never contains a raw newline, so one `data:` line suffices.
 * Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import type { Event } from './events.ts';

export function formatEventId(runId: string, sequence: number): string {
  return `${runId}:${sequence}`;
}

/** Splits `<runId>:<sequence>`; undefined when the id is not one of ours. */
export function parseEventId(id: string | null | undefined): { runId: string; sequence: number } | undefined {
  if (!id) return undefined;
  const at = id.lastIndexOf(':');
  if (at <= 0) return undefined;
  const sequence = Number(id.slice(at + 1));
  if (!Number.isInteger(sequence) || sequence < 0) return undefined;
  return { runId: id.slice(0, at), sequence };
}

export function formatSseFrame(event: Event, id?: string): string {
  if (id !== undefined && /[\r\n]/.test(id)) throw new TypeError('An SSE id must not contain CR or LF');
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
