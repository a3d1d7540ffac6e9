/**
 * Server-Sent Events framing for the decoders' hot path: lines are found with `indexOf` over
 * the text received (the way a bare split would), and a `data:` line costs one slice. Follows
 * the spec's event-stream interpretation
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * CRLF, LF and CR line ends (also split across chunks), a leading BOM, comments, `event`, `id`
 * (ignored when it holds NUL), multi-line `data`, one space after the colon, unknown fields
 * ignored, an event dispatched on a blank line only if it has data. Checked against
 * eventsource-parser on random streams cut at random points (sse-framer.test.ts).
 *
 * Linear in its input: each chunk is searched once, from where the last search stopped, and
 * the unfinished line is kept as a list of pieces joined once when its line end arrives
 * (the way eventsource-parser buffers). Searching `held + chunk` again on every chunk made one
 * long event (a Responses closing event repeats the whole answer; an image arrives as one
 * base64 event) cost O(n^2). A CR is a line end as soon as it is seen; an LF right after it,
 * even in the next chunk, is skipped, so CRLF needs no rewrite of the text.
 */
import type { WireEvent } from '../types.ts';

/**
 * A push-based SSE framer: text in, complete events out.
 *
 * @example
 * const framer = createSseFramer();
 * framer.push('data: {"a":1}\n'); // []
 * framer.push('\n'); // [{ event: undefined, data: '{"a":1}', id: undefined }]
 */
export interface SseFramer {
  push(text: string): WireEvent[];
  /** The body ended: a last event without its blank line is still an event the provider sent. */
  flush(): WireEvent[];
}

/**
 * Options of `createSseFramer`.
 *
 * @example
 * let scanned = 0;
 * const framer = createSseFramer({ onScan: (chars) => (scanned += chars) });
 */
export interface SseFramerOptions {
  /**
   * Called after each `push` with the number of characters that push examined or copied (line-end
   * searches plus the joining of a line held across chunks). For tests that check the work is
   * linear in the input; leave it out otherwise.
   */
  onScan?: ((chars: number) => void) | undefined;
}

const LF = 10;

/**
 * Creates an SSE framer (the decoders' framing for every SSE dialect).
 *
 * @example
 * const framer = createSseFramer();
 * const events = [...framer.push('event: ping\ndata: {}\n\n'), ...framer.flush()];
 */
export function createSseFramer(options: SseFramerOptions = {}): SseFramer {
  const { onScan } = options;
  /** The pieces of a line whose end has not arrived yet; their total length is `heldLength`. */
  let held: string[] = [];
  let heldLength = 0;
  /** The last chunk ended with a CR: an LF that starts the next one belongs to it. */
  let skipLF = false;
  let first = true;
  let data = '';
  let lines = 0;
  let event: string | undefined;
  let id: string | undefined;
  let scanned = 0;

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
    // `event: ` (Anthropic and Responses name every event) next, without the general split.
    if (text.charCodeAt(0) === 101 && text.startsWith('event:')) {
      event = (text.charCodeAt(6) === 32 ? text.slice(7) : text.slice(6)) || undefined;
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

  /** The line that ends at `end` in `text`, with the pieces held from earlier chunks in front. */
  function take(text: string, start: number, end: number): string {
    if (held.length === 0) return text.slice(start, end);
    held.push(text.slice(start, end));
    scanned += heldLength + end - start;
    const whole = held.join('');
    held = [];
    heldLength = 0;
    return whole;
  }

  /** `text.indexOf(char, from)`, counting the characters it looked at. */
  function find(text: string, char: string, from: number): number {
    const at = text.indexOf(char, from);
    scanned += (at < 0 ? text.length : at + 1) - from;
    return at;
  }

  function push(text: string): WireEvent[] {
    if (first && text !== '') {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: WireEvent[] = [];
    let start = 0;
    if (skipLF && text !== '') {
      skipLF = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    let cr = find(text, '\r', start);
    if (cr < 0) {
      // LF line ends only (the usual case): one search per line, nothing else.
      for (let at = text.indexOf('\n', start); at >= 0; at = text.indexOf('\n', start)) {
        scanned += at + 1 - start;
        line(out, held.length === 0 ? text.slice(start, at) : take(text, start, at));
        start = at + 1;
      }
      scanned += text.length - start;
    } else {
      // CR or CRLF line ends: the next CR and the next LF, each searched again only once passed.
      let lf = find(text, '\n', start);
      for (;;) {
        const end = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
        if (end < 0) break;
        line(out, take(text, start, end));
        start = end + 1;
        if (end === cr) {
          if (start === text.length) skipLF = true;
          else if (text.charCodeAt(start) === LF) start++;
        }
        if (cr >= 0 && cr < start) cr = find(text, '\r', start);
        if (lf >= 0 && lf < start) lf = find(text, '\n', start);
      }
    }
    if (start < text.length) {
      held.push(start === 0 ? text : text.slice(start));
      heldLength += text.length - start;
    }
    if (onScan) {
      onScan(scanned);
      scanned = 0;
    }
    return out;
  }

  return {
    push,
    flush() {
      // A CR already ended its line: the blank line that closes the event is all that is missing.
      skipLF = false;
      const out = push('\n\n');
      held = [];
      heldLength = 0;
      return out;
    },
  };
}
