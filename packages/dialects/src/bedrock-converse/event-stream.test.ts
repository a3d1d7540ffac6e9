// The event-stream decoder against messages the AWS SDK's own codec (@smithy/eventstream-codec) encodes:
// every header type, payloads of every size, bytes cut at random boundaries, and each kind of damage.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getClientDialect } from '../client-registry.ts';
import { decodeStream, decodeText } from '../registry.ts';
import type { Event } from '@parlance/protocol';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import { MAX_EVENT_STREAM_MESSAGE, crc32, createEventStreamDecoder, createEventStreamFramer } from './event-stream.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
// The recordings kept in the repo (copied from shared/fixtures, with their NOTICE).
const FIXTURES = join(import.meta.dirname, '../../test/fixtures/anthropic_messages');

/** A seeded generator, so a failing cut can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function cut(bytes: Uint8Array, seed: number): Uint8Array[] {
  const next = random(seed);
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const size = 1 + Math.floor(next() * (next() < 0.3 ? 4 : 64));
    out.push(bytes.slice(at, at + size));
    at += size;
  }
  return out;
}

function join_(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function event(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: { ':message-type': { type: 'string', value: 'event' }, ':event-type': { type: 'string', value: type }, ':content-type': { type: 'string', value: 'application/json' } },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

describe('crc32', () => {
  it('gives the standard check value', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });
});

describe('event-stream decoding against the AWS SDK codec', () => {
  it('reads every header type as the codec wrote it', () => {
    const bytes = codec.encode({
      headers: {
        bool1: { type: 'boolean', value: true },
        bool2: { type: 'boolean', value: false },
        byte: { type: 'byte', value: -7 },
        short: { type: 'short', value: -300 },
        integer: { type: 'integer', value: 40_972 },
        binary: { type: 'binary', value: new Uint8Array([0, 255, 1]) },
        string: { type: 'string', value: 'contentBlockDelta ✓' },
        timestamp: { type: 'timestamp', value: new Date(1_700_000_000_000) },
        uuid: { type: 'uuid', value: '0f0e0d0c-0b0a-0908-0706-050403020100' },
      },
      body: fromUtf8('{"a":1}'),
    });
    const [message] = createEventStreamDecoder().push(bytes);
    expect(message!.headers).toEqual({
      bool1: true,
      bool2: false,
      byte: -7,
      short: -300,
      integer: 40_972,
      binary: new Uint8Array([0, 255, 1]),
      string: 'contentBlockDelta ✓',
      timestamp: new Date(1_700_000_000_000),
      uuid: new Uint8Array([15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
    });
    expect(toUtf8(message!.payload)).toBe('{"a":1}');
  });

  it('decodes the same messages whatever the cuts (50 seeds), empty payloads and 100 KB ones included', () => {
    const payloads = [{}, { text: 'é'.repeat(50_000) }, { contentBlockIndex: 0, delta: { text: 'Hi' } }, ...Array.from({ length: 20 }, (_, i) => ({ i }))];
    const bytes = join_(payloads.map((p, i) => event(`e${i}`, p)));
    for (let seed = 1; seed <= 50; seed++) {
      const framer = createEventStreamFramer();
      const wires = cut(bytes, seed).flatMap((part) => framer.push(part));
      framer.flush();
      expect(wires.map((w) => [w.event, JSON.parse(w.data)])).toEqual(payloads.map((p, i) => [`e${i}`, p]));
    }
  });

  it.each([
    ['a prelude checksum', 8, /prelude checksum/],
    ['a message checksum', -1, /message checksum/],
    ['the payload', -6, /message checksum/],
    ['the total length', 2, /prelude checksum/],
  ])('refuses a stream with damaged %s', (_name, offset, message) => {
    const bytes = event('chunk', { bytes: 'eyJ0eXBlIjoicGluZyJ9' });
    const at = offset < 0 ? bytes.length + offset : offset;
    bytes[at] = bytes[at]! ^ 0xff;
    expect(() => createEventStreamDecoder().push(bytes)).toThrow(message);
  });

  it('refuses a length beyond the format limit before buffering it', () => {
    const prelude = new Uint8Array(12);
    const view = new DataView(prelude.buffer);
    view.setUint32(0, MAX_EVENT_STREAM_MESSAGE + 1);
    view.setUint32(8, crc32(prelude, 0, 8));
    expect(() => createEventStreamDecoder().push(prelude)).toThrow(/a message of/);
  });

  it('reports a body that ends inside a message', () => {
    const bytes = event('chunk', {});
    const decoder = createEventStreamDecoder();
    expect(decoder.push(bytes.slice(0, bytes.length - 3))).toEqual([]);
    expect(() => decoder.flush()).toThrow(/ended inside a message/);
  });

  it('maps exception and error messages to wire events the decoders know', () => {
    const exception = codec.encode({
      headers: { ':message-type': { type: 'string', value: 'exception' }, ':exception-type': { type: 'string', value: 'throttlingException' } },
      body: fromUtf8('{"message":"Too many tokens"}'),
    });
    const error = codec.encode({
      headers: { ':message-type': { type: 'string', value: 'error' }, ':error-code': { type: 'string', value: 'InternalFailure' }, ':error-message': { type: 'string', value: 'boom' } },
      body: new Uint8Array(),
    });
    const framer = createEventStreamFramer();
    expect(framer.push(join_([exception, error]))).toEqual([
      { event: 'throttlingException', data: '{"message":"Too many tokens"}' },
      { event: 'InternalFailure', data: '{"message":"boom"}' },
    ]);
  });
});

/** A recorded Anthropic Messages stream, as InvokeModelWithResponseStream frames it: each event base64 in a `chunk`. */
function asBedrockInvoke(sse: string): Uint8Array {
  const payloads = sse.includes('data: ') ? sse.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)) : sse.split('\n').filter((l) => l.trim());
  return join_(payloads.map((json) => event('chunk', { bytes: Buffer.from(json, 'utf8').toString('base64'), p: 'abcdefghij' })));
}

function sseOf(text: string): string {
  if (text.includes('data: ')) return text;
  return text.split('\n').filter((l) => l.trim()).map((l) => `event: ${JSON.parse(l).type}\ndata: ${l}\n\n`).join('');
}

describe('recorded Anthropic streams framed as Bedrock InvokeModelWithResponseStream, cut at random byte boundaries', () => {
  const anthropic = getClientDialect('anthropic_messages');
  const invoke = { ...anthropic, createByteFramer: createEventStreamFramer };
  const files = readdirSync(FIXTURES).sort();

  it('has recordings to run', () => expect(files.length).toBeGreaterThan(10));

  it.each(files)('%s decodes to the same events as the SSE original', async (file) => {
    const text = readFileSync(join(FIXTURES, file), 'utf8');
    const expected = decodeText(anthropic, sseOf(text));
    const bytes = asBedrockInvoke(text);
    expect(decodeText(invoke, bytes)).toEqual(expected);
    for (let seed = 1; seed <= 8; seed++) {
      const parts = cut(bytes, seed * 7919);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = parts.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      });
      const events: Event[] = [];
      for await (const e of decodeStream(invoke, body)) events.push(e);
      expect(events).toEqual(expected);
    }
  });

  it('a stream cut inside a message ends with invalid_response after what arrived', async () => {
    const bytes = asBedrockInvoke(readFileSync(join(FIXTURES, 'omni__anthropic_text.sse'), 'utf8'));
    const events = decodeText(invoke, bytes.slice(0, bytes.length - 5));
    expect(events.at(-2)).toMatchObject({ type: 'error', code: 'invalid_response' });
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
    expect(events.some((e) => e.type === 'text-delta')).toBe(true);
  });
});

describe('damage after complete messages', () => {
  it('hands out the messages before the damage, then fails', () => {
    const good = event('a', { n: 1 });
    const bad = event('b', { n: 2 });
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    const decoder = createEventStreamDecoder();
    expect(decoder.push(join_([good, bad])).map((m) => m.headers[':event-type'])).toEqual(['a']);
    expect(() => decoder.push(new Uint8Array())).toThrow(/message checksum/);
    expect(() => decoder.flush()).toThrow(/message checksum/);
  });
});
