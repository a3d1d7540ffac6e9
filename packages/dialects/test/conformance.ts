/**
 * One conformance suite that every dialect passes (the pattern of Hono's
 * `common.case.test.ts`): each recorded stream, fed whole, one wire event per
 * chunk, and cut at 20 random byte offsets (half of them inside multibyte
 * characters), must give identical events; the collected response must match
 * values read from the recording itself; a cut or corrupted stream must keep
 * what arrived and end in a typed error.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectResponse, type Event, type FinishReason, type Response, type Usage } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { decodeDialectStream } from '../src/decode-stream.ts';
import type { Dialect, DialectId } from '../src/types.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

export interface Fixture {
  name: string;
  /** The body as the provider sent it (chunks.txt files re-framed as SSE). */
  bytes: Uint8Array;
  /** The body split at wire-event boundaries. */
  frames: Uint8Array[];
  /** Each wire event's parsed JSON payload (and SSE event name), for expectations. */
  payloads: { event?: string; data: any }[];
}

const encoder = new TextEncoder();

function frameChunksFile(text: string, eventLine: boolean): string[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const type = eventLine ? (JSON.parse(line) as { type?: string }).type : undefined;
      return `${type ? `event: ${type}\n` : ''}data: ${line}\n\n`;
    });
}

function splitSse(text: string): string[] {
  const frames: string[] = [];
  const re = /\r\n\r\n|\n\n|\r\r/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    frames.push(text.slice(last, m.index + m[0].length));
    last = m.index + m[0].length;
  }
  if (last < text.length) frames.push(text.slice(last));
  return frames;
}

function payloadsOf(frames: string[], ndjson: boolean): { event?: string; data: any }[] {
  const out: { event?: string; data: any }[] = [];
  for (const frame of frames) {
    if (ndjson) {
      if (frame.trim()) out.push({ data: JSON.parse(frame) });
      continue;
    }
    let event: string | undefined;
    const data: string[] = [];
    for (const line of frame.split(/\r\n|\n|\r/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (!data.length) continue;
    const joined = data.join('\n');
    if (joined === '[DONE]') continue;
    try {
      out.push(event ? { event, data: JSON.parse(joined) } : { data: JSON.parse(joined) });
    } catch {
      out.push(event ? { event, data: joined } : { data: joined });
    }
  }
  return out;
}

export function loadFixtures(dialect: DialectId): Fixture[] {
  const dir = join(FIXTURES, dialect);
  const eventLine = dialect === 'anthropic_messages' || dialect === 'openai_responses';
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const raw = readFileSync(join(dir, name), 'utf8');
      const ndjson = name.endsWith('.ndjson');
      const frames = ndjson
        ? raw.split(/(?<=\n)/)
        : name.endsWith('.chunks.txt')
          ? frameChunksFile(raw, eventLine)
          : splitSse(raw);
      return {
        name,
        bytes: encoder.encode(frames.join('')),
        frames: frames.map((f) => encoder.encode(f)),
        payloads: payloadsOf(frames, ndjson),
      };
    });
}

/** A small deterministic PRNG (mulberry32), so a failing cut can be reproduced from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts bytes at random offsets; half the cuts land inside a multibyte UTF-8 sequence when there is one. */
export function randomCuts(bytes: Uint8Array, random: () => number, maxPieces = 12): Uint8Array[] {
  const continuation: number[] = [];
  for (let i = 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) continuation.push(i);
  const count = 1 + Math.floor(random() * maxPieces);
  const cuts = new Set<number>();
  for (let i = 0; i < count; i++) {
    const inside = continuation.length > 0 && random() < 0.5;
    const at = inside ? continuation[Math.floor(random() * continuation.length)]! : 1 + Math.floor(random() * (bytes.length - 1));
    cuts.add(at);
  }
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let last = 0;
  for (const at of sorted) {
    out.push(bytes.subarray(last, at));
    last = at;
  }
  out.push(bytes.subarray(last));
  return out;
}

export function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

export async function decodeChunks(dialect: Dialect, chunks: Uint8Array[]): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of decodeDialectStream(dialect, streamOf(chunks))) events.push(event);
  return events;
}

/**
 * Decodes `body` whole, then cut at 20 random byte offsets (inside lines and multibyte
 * characters): the events must be well formed, and identical at every cut.
 */
export async function decodeAtCuts(dialect: Dialect, body: string | Uint8Array): Promise<Event[]> {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const whole = await decodeChunks(dialect, [bytes]);
  assertWellFormed(whole);
  const random = seededRandom(bytes.length);
  for (let i = 0; i < 20; i++) expect(await decodeChunks(dialect, randomCuts(bytes, random))).toEqual(whole);
  return whole;
}

/** Structural rules every decoded stream obeys, whatever the provider sent. */
export function assertWellFormed(events: Event[]): void {
  expect(events[0]?.type).toBe('message-start');
  const finishes = events.filter((e) => e.type === 'finish');
  expect(finishes).toHaveLength(1);
  expect(events[events.length - 1]?.type).toBe('finish');
  const open = new Map<string, string>();
  for (const event of events) {
    switch (event.type) {
      case 'text-start':
      case 'reasoning-start':
      case 'tool-call-start':
        expect(open.has(event.id), `block ${event.id} opened twice`).toBe(false);
        open.set(event.id, event.type.replace('-start', ''));
        break;
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
        expect(open.get(event.id), `${event.type} for a block that is not open`).toBe(event.type.replace('-delta', ''));
        break;
      case 'text-end':
      case 'reasoning-end':
      case 'tool-call-end':
        expect(open.get(event.id)).toBe(event.type.replace('-end', ''));
        open.delete(event.id);
        break;
      case 'finish':
        expect(open.size, 'blocks left open at finish').toBe(0);
        break;
    }
  }
}

/** What a recording says, read from its own payloads by the dialect's test. */
export interface Expected {
  text: string;
  reasoning?: string;
  toolCalls?: { name: string; input: unknown }[];
  usage?: Usage;
  finishReason?: FinishReason;
  errorCode?: string;
}

function textOf(response: Response, type: 'text' | 'reasoning'): string {
  let out = '';
  for (const part of response.message.parts) if (part.type === type) out += part.text;
  return out;
}

/** Corrupts a body: a garbage payload after the first wire event. */
function corrupt(fixture: Fixture, ndjson: boolean): Uint8Array[] {
  const garbage = encoder.encode(ndjson ? '{"message": {"content": "x"\n' : 'data: {"not json\n\n');
  return [fixture.frames[0]!, garbage, ...fixture.frames.slice(1)];
}

export function runConformance(dialect: Dialect, expectFromRecording: (fixture: Fixture) => Expected): void {
  const fixtures = loadFixtures(dialect.id);
  describe(`${dialect.id} conformance`, () => {
    it('has recordings', () => {
      expect(fixtures.length).toBeGreaterThan(0);
    });
    for (const fixture of fixtures) {
      describe(fixture.name, () => {
        it('gives identical events whole, per wire event and at 20 random byte cuts', async () => {
          const whole = await decodeChunks(dialect, [fixture.bytes]);
          assertWellFormed(whole);
          expect(await decodeChunks(dialect, fixture.frames)).toEqual(whole);
          const random = seededRandom(fixture.bytes.length);
          for (let i = 0; i < 20; i++) {
            const chunks = randomCuts(fixture.bytes, random);
            expect(await decodeChunks(dialect, chunks), `cut at ${chunks.map((c) => c.length).join(',')}`).toEqual(whole);
          }
        });

        it('collects what the recording says', async () => {
          const expected = expectFromRecording(fixture);
          const response = await collectResponse(await decodeChunks(dialect, [fixture.bytes]));
          expect(textOf(response, 'text')).toBe(expected.text);
          if (expected.reasoning !== undefined) expect(textOf(response, 'reasoning')).toBe(expected.reasoning);
          if (expected.toolCalls !== undefined) {
            const calls = response.message.parts.filter((p) => p.type === 'tool-call' && !p.providerExecuted);
            expect(calls.map((c) => (c.type === 'tool-call' ? { name: c.name, input: c.input } : c))).toEqual(expected.toolCalls);
          }
          if (expected.usage !== undefined) expect(response.usage).toEqual(expected.usage);
          if (expected.finishReason !== undefined) expect(response.finishReason).toBe(expected.finishReason);
          if (expected.errorCode !== undefined) expect(response.error?.code).toBe(expected.errorCode);
        });

        it('keeps what arrived when the stream is cut, and reports the cut', async () => {
          const full = await collectResponse(await decodeChunks(dialect, [fixture.bytes]));
          const half = fixture.frames.slice(0, Math.max(1, Math.floor(fixture.frames.length / 2)));
          const events = await decodeChunks(dialect, half);
          assertWellFormed(events);
          const cut = await collectResponse(events);
          expect(textOf(full, 'text').startsWith(textOf(cut, 'text'))).toBe(true);
          if (full.finishReason !== 'error') {
            expect(cut.finishReason).toBe('error');
            expect(cut.error?.code).toBe('invalid_response');
          }
        });

        it('reports a corrupt payload as invalid_response without throwing', async () => {
          const events = await decodeChunks(dialect, corrupt(fixture, dialect.framing === 'ndjson'));
          assertWellFormed(events);
          const response = await collectResponse(events);
          expect(response.finishReason).toBe('error');
          expect(response.error?.code).toBe('invalid_response');
        });
      });
    }
  });
}
