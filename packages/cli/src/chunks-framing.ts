/**
 * Re-frames a `*.chunks.txt` recording (one JSON payload per line, SSE framing
 * stripped by the recorder) as the bytes the provider sent: `data: <line>` frames,
 * with `event: <type>` first for the APIs that name their events (Anthropic, OpenAI
 * Responses). NDJSON dialects need no re-framing: a line is already a frame.
 * See packages/dialects/test/fixtures/NOTICE.md.
 */
import type { DialectId } from '@parlance/dialects';

const NAMED_EVENTS: ReadonlySet<DialectId> = new Set(['anthropic_messages', 'openai_responses']);

function frameLine(line: string, eventLine: boolean): string {
  let type: unknown;
  if (eventLine) {
    try {
      type = (JSON.parse(line) as { type?: unknown }).type;
    } catch {
      // Not JSON: pass it on unnamed, and let the decoder report it.
    }
  }
  return `${typeof type === 'string' && !/[\r\n]/.test(type) ? `event: ${type}\n` : ''}data: ${line}\n\n`;
}

/** A TransformStream from chunks.txt text to the provider's SSE text (line by line, O(n)). */
export function chunksToWire(dialect: DialectId, framing: 'sse' | 'ndjson'): TransformStream<string, string> {
  const eventLine = NAMED_EVENTS.has(dialect);
  let tail = '';
  const convert = (line: string) => {
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (trimmed.trim() === '') return '';
    return framing === 'ndjson' ? `${trimmed}\n` : frameLine(trimmed, eventLine);
  };
  return new TransformStream<string, string>({
    transform(text, controller) {
      const lines = (tail + text).split('\n');
      tail = lines.pop() ?? '';
      const out = lines.map(convert).join('');
      if (out) controller.enqueue(out);
    },
    flush(controller) {
      const out = convert(tail);
      if (out) controller.enqueue(out);
    },
  });
}
