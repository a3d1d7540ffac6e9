/**
 * Server-Sent Events framing for the decoders' hot path: lines are found with `indexOf` over
 * the text received (the way a bare split would), and a `data:` line costs one slice. Follows
 * the spec's event-stream interpretation
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * CRLF, LF and CR line ends (also split across chunks), a leading BOM, comments, `event`, `id`
 * (ignored when it holds NUL), multi-line `data`, one space after the colon, unknown fields
 * ignored, an event dispatched on a blank line only if it has data. Checked against
 * eventsource-parser on random streams cut at random points (sse-framer.test.ts).
 */
import type { WireEvent } from '../types.ts';

export interface SseFramer {
  push(text: string): WireEvent[];
  /** The body ended: a last event without its blank line is still an event the provider sent. */
  flush(): WireEvent[];
}

export function createSseFramer(): SseFramer {
  let tail = '';
  let first = true;
  let data = '';
  let lines = 0;
  let event: string | undefined;
  let id: string | undefined;

  function line(out: WireEvent[], text: string) {
    if (text === '') {
      if (lines > 0) out.push({ event, data, id });
      data = '';
      lines = 0;
      event = undefined;
      id = undefined;
      return;
    }
    // `data: ` (the usual case) first.
    if (text.charCodeAt(0) === 100 && text.startsWith('data:')) {
      const value = text.charCodeAt(5) === 32 ? text.slice(6) : text.slice(5);
      data = lines++ === 0 ? value : `${data}\n${value}`;
      return;
    }
    if (text.charCodeAt(0) === 58) return; // a comment
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(text.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
    if (field === 'data') data = lines++ === 0 ? value : `${data}\n${value}`;
    else if (field === 'event') event = value || undefined;
    else if (field === 'id') {
      if (!value.includes('\0')) id = value;
    }
  }

  function push(text: string): WireEvent[] {
    if (first && text !== '') {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let buffer = tail + text;
    const out: WireEvent[] = [];
    if (buffer.includes('\r')) {
      // Rare: CR or CRLF line ends. A CR at the very end may be the first half of a CRLF: held back.
      const held = buffer.endsWith('\r');
      buffer = (held ? buffer.slice(0, -1) : buffer).replace(/\r\n?/g, '\n');
      if (held) {
        let start = 0;
        for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n', start)) {
          line(out, buffer.slice(start, at));
          start = at + 1;
        }
        tail = `${buffer.slice(start)}\r`;
        return out;
      }
    }
    let start = 0;
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n', start)) {
      line(out, buffer.slice(start, at));
      start = at + 1;
    }
    tail = buffer.slice(start);
    return out;
  }

  return {
    push,
    flush() {
      const out = push('\n\n');
      tail = '';
      return out;
    },
  };
}
