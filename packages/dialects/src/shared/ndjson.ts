/**
 * A small NDJSON line splitter (Ollama's framing): push text, get complete lines.
 *
 * Linear in its input: each chunk is searched once for line ends, and a line that spans
 * chunks is kept as a list of pieces joined once when its LF arrives. (Splitting
 * `tail + chunk` on every push, as before, searched a long line again on every chunk: O(n^2).)
 * A CR before the LF is dropped; blank lines are skipped.
 */

/**
 * Lines in, complete lines out.
 *
 * @example
 * const lines = createLineSplitter();
 * lines.push('{"a":1}\n{"b"'); // ['{"a":1}']
 * lines.flush(); // ['{"b"']
 */
export interface LineSplitter {
  push(text: string): string[];
  /** The last line, if the body did not end with a newline. */
  flush(): string[];
}

/**
 * Options of `createLineSplitter`.
 *
 * @example
 * let scanned = 0;
 * const lines = createLineSplitter({ onScan: (chars) => (scanned += chars) });
 */
export interface LineSplitterOptions {
  /** Called after each `push` with the characters it searched or copied (tests of linear work). */
  onScan?: ((chars: number) => void) | undefined;
}

/**
 * Creates an NDJSON line splitter.
 *
 * @example
 * const lines = createLineSplitter();
 * for (const line of lines.push(chunkText)) JSON.parse(line);
 */
export function createLineSplitter(options: LineSplitterOptions = {}): LineSplitter {
  const { onScan } = options;
  let held: string[] = [];
  let scanned = 0;

  function emit(out: string[], line: string) {
    const trimmed = line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
    if (trimmed.trim() !== '') out.push(trimmed);
  }

  return {
    push(text) {
      const out: string[] = [];
      let start = 0;
      for (;;) {
        const at = text.indexOf('\n', start);
        scanned += (at < 0 ? text.length : at + 1) - start;
        if (at < 0) break;
        if (held.length === 0) emit(out, text.slice(start, at));
        else {
          held.push(text.slice(start, at));
          const whole = held.join('');
          scanned += whole.length;
          held = [];
          emit(out, whole);
        }
        start = at + 1;
      }
      if (start < text.length) held.push(start === 0 ? text : text.slice(start));
      if (onScan) {
        onScan(scanned);
        scanned = 0;
      }
      return out;
    },
    flush() {
      const last = held.join('').trim();
      held = [];
      return last === '' ? [] : [last];
    },
  };
}
