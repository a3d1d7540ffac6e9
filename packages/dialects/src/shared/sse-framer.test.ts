import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/conformance.ts';
import type { WireEvent } from '../types.ts';
import { createSseFramer } from './sse-framer.ts';

const PIECES = ['data: {"a":1}', 'data:{"b":"ü 🌍"}', 'data: ', 'data', 'event: content_block_delta', 'event:', 'id: 7', 'id: a\0b', ': ping', ':', 'retry: 10', 'unknown: x', 'data:  two spaces', 'data: [DONE]', ''];
const ENDS = ['\n', '\r\n', '\r'];

function randomStream(random: () => number): string {
  let text = random() < 0.2 ? '\uFEFF' : '';
  const count = 1 + Math.floor(random() * 40);
  for (let i = 0; i < count; i++) text += PIECES[Math.floor(random() * PIECES.length)]! + ENDS[Math.floor(random() * ENDS.length)]!;
  return text;
}

function reference(text: string): WireEvent[] {
  const out: WireEvent[] = [];
  const parser = createParser({ onEvent: (m) => out.push({ event: m.event, data: m.data, id: m.id }) });
  // The spec drops one leading BOM; eventsource-parser does not, so the reference is fed without it.
  parser.feed(text.replace(/^\uFEFF/, ''));
  parser.feed('\n\n');
  return out;
}

function ours(text: string, random: () => number): WireEvent[] {
  const framer = createSseFramer();
  const out: WireEvent[] = [];
  for (let at = 0; at < text.length; ) {
    const to = Math.min(text.length, at + 1 + Math.floor(random() * 12));
    out.push(...framer.push(text.slice(at, to)));
    at = to;
  }
  out.push(...framer.flush());
  return out;
}

describe('the SSE framer', () => {
  it('frames like eventsource-parser on random streams (LF, CRLF, CR, BOM, comments, fields) cut at random points', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const random = seededRandom(seed);
      const text = randomStream(random);
      expect(ours(text, random), `seed ${seed}: ${JSON.stringify(text)}`).toEqual(reference(text));
    }
  });

  it('keeps a last event that has no blank line after it', () => {
    const framer = createSseFramer();
    expect(framer.push('event: x\ndata: {"a":1}')).toEqual([]);
    expect(framer.flush()).toEqual([{ event: 'x', data: '{"a":1}', id: undefined }]);
  });
});
