/**
 * The framers' work is linear in their input: one long event (1, 2 and 4 MB) fed at several
 * chunk sizes and with every line end is searched and copied a bounded number of times per
 * character. Measured by the framers' `onScan` count of characters examined, not by timing.
 */
import { describe, expect, it } from 'vitest';
import { createLineSplitter } from './ndjson.ts';
import { createSseFramer } from './sse-framer.ts';

const MB = 1024 * 1024;
const SIZES = [1 * MB, 2 * MB, 4 * MB];
const CHUNKS = [1024, 4096, 64 * 1024];
/** Characters examined per input character, at most: a search for CR and one for LF, plus one join. */
const PER_CHAR = 3;

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** A JSON payload of about `bytes` characters, the shape of a closing event or a base64 image. */
const payload = (bytes: number) => `{"type":"response.completed","text":"${'abcdefgh'.repeat(Math.ceil(bytes / 8))}"}`;

interface Framed {
  scanned: number;
  length: number;
  data: string[];
}

function frameSse(size: number, chunk: number, end: string): Framed {
  let scanned = 0;
  const framer = createSseFramer({ onScan: (chars) => (scanned += chars) });
  const text = `event: big${end}data: ${payload(size)}${end}${end}data: {"after":1}${end}${end}`;
  const data: string[] = [];
  for (const piece of pieces(text, chunk)) for (const event of framer.push(piece)) data.push(event.data);
  for (const event of framer.flush()) data.push(event.data);
  return { scanned, length: text.length, data };
}

function frameNdjson(size: number, chunk: number, end: string): Framed {
  let scanned = 0;
  const lines = createLineSplitter({ onScan: (chars) => (scanned += chars) });
  const text = `${payload(size)}${end}{"after":1}${end}`;
  const data: string[] = [];
  for (const piece of pieces(text, chunk)) data.push(...lines.push(piece));
  data.push(...lines.flush());
  return { scanned, length: text.length, data };
}

const cases = [
  ...['\n', '\r\n', '\r'].map((end) => ({ framing: `SSE, ${JSON.stringify(end)} line ends`, run: (size: number, chunk: number) => frameSse(size, chunk, end) })),
  ...['\n', '\r\n'].map((end) => ({ framing: `NDJSON, ${JSON.stringify(end)} line ends`, run: (size: number, chunk: number) => frameNdjson(size, chunk, end) })),
];

describe('framing work is linear in the event size', () => {
  for (const { framing, run } of cases) {
    it(`${framing}: 1, 2 and 4 MB events at 1 KiB, 4 KiB and 64 KiB chunks`, () => {
      for (const chunk of CHUNKS) {
        const scans = SIZES.map((size) => {
          const framed = run(size, chunk);
          expect(framed.data, `${size} B at ${chunk} B chunks`).toEqual([payload(size), '{"after":1}']);
          expect(framed.scanned, `${size} B at ${chunk} B chunks`).toBeLessThanOrEqual(PER_CHAR * framed.length);
          return framed.scanned / framed.length;
        });
        // The same work per character at every size: doubling the event doubles the work.
        const [at1, at2, at4] = scans as [number, number, number];
        expect(at2 / at1).toBeCloseTo(1, 1);
        expect(at4 / at1).toBeCloseTo(1, 1);
      }
    });
  }

  it('the work does not depend on the chunk size either (1 KiB chunks cost what one chunk costs)', () => {
    const whole = frameSse(2 * MB, 8 * MB, '\n').scanned;
    const small = frameSse(2 * MB, 1024, '\n').scanned;
    expect(small / whole).toBeLessThan(1.6);
  });
});
