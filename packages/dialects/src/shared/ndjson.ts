/**
 * A small NDJSON line splitter (Ollama's framing): push text, get complete lines.
 * Buffers only the unfinished tail, so a long stream costs O(n), not O(n^2).
 */
export interface LineSplitter {
  push(text: string): string[];
  /** The last line, if the body did not end with a newline. */
  flush(): string[];
}

export function createLineSplitter(): LineSplitter {
  let tail = '';
  return {
    push(text) {
      const chunk = tail + text;
      const lines = chunk.split('\n');
      tail = lines.pop() ?? '';
      const out: string[] = [];
      for (const line of lines) {
        const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (trimmed.trim() !== '') out.push(trimmed);
      }
      return out;
    },
    flush() {
      const last = tail.trim();
      tail = '';
      return last === '' ? [] : [last];
    },
  };
}
