/**
 * Text deltas the way providers really send them: every text delta of the recorded provider
 * streams in `packages/dialects/test/fixtures` (real responses from OpenAI-compatible vendors,
 * the Responses API, Anthropic, Gemini and Ollama), decoded with the dialects' own decoders and
 * replayed in order. They are word-sized (median 5 characters, about 10 on average), with spaces,
 * punctuation, newlines, quotes and non-ASCII characters, so each costs what a real one costs in
 * JSON escaping and framing (a `tok123 ` token has none of that).
 *
 * @example
 * const deltas = realisticDeltas(50); // ['Light', ' b', 'ends through the', ...]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECT_IDS, type DialectId, decodeText } from '@parlance/dialects';

const FIXTURES = join(import.meta.dirname, '../../../packages/dialects/test/fixtures');
/** Dialects whose SSE names each event after its payload's `type` (the recorder dropped the line). */
const NAMED_EVENTS = new Set<DialectId>(['anthropic_messages', 'openai_responses']);

/** A `*.chunks.txt` recording (one JSON payload per line) framed back as the provider sent it. */
function reframe(dialect: DialectId, chunks: string): string {
  let body = '';
  for (const line of chunks.split('\n')) {
    if (line.trim() === '') continue;
    let type: unknown;
    try {
      type = (JSON.parse(line) as { type?: unknown }).type;
    } catch {
      type = undefined;
    }
    if (NAMED_EVENTS.has(dialect) && typeof type === 'string') body += `event: ${type}\n`;
    body += `data: ${line}\n\n`;
  }
  return body;
}

let pool: string[] | undefined;

/** Every recorded text delta, in recording order. */
export function recordedDeltas(): string[] {
  if (pool) return pool;
  pool = [];
  for (const dialect of DIALECT_IDS) {
    let files: string[];
    try {
      files = readdirSync(join(FIXTURES, dialect)).sort();
    } catch {
      continue;
    }
    for (const file of files) {
      const raw = readFileSync(join(FIXTURES, dialect, file), 'utf8');
      const body = file.endsWith('.chunks.txt') ? reframe(dialect, raw) : raw;
      for (const event of decodeText(dialect, body)) if (event.type === 'text-delta') pool.push(event.delta);
    }
  }
  if (pool.length < 100) throw new Error(`Only ${pool.length} recorded text deltas found under ${FIXTURES}`);
  return pool;
}

/** `count` recorded deltas, taken in order from the start of the pool (and around again). */
export function realisticDeltas(count: number): string[] {
  const all = recordedDeltas();
  return Array.from({ length: count }, (_, i) => all[i % all.length]!);
}
