/**
 * Amazon's event-stream binary framing (`application/vnd.amazon.eventstream`), decoded as bytes arrive:
 * https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-stream
 * https://smithy.io/2.0/aws/amazon-eventstream.html
 *
 * A message is a 12-byte prelude (total length, headers length, CRC32 of those 8 bytes), the headers
 * (name length u8, name, value type u8, value), the payload, and a CRC32 of everything before it.
 * Each message becomes one wire event: `event` is its `:event-type` header (`chunk`, `contentBlockDelta`)
 * or, for an exception, its `:exception-type` (`throttlingException`); `data` is the payload as text.
 *
 * Hand-written rather than @smithy/eventstream-codec: that codec decodes whole messages only and pulls
 * in the AWS SDK's utility packages; framing incrementally is the part we need, and it is 150 lines.
 * The tests check it against messages the official codec encodes.
 */
import type { ByteFramer, WireEvent } from '../types.ts';

/**
 * The largest message accepted (the decoder's only buffer bound): the format allows 16 MiB of payload and 128 KiB of headers
 * (https://smithy.io/2.0/aws/amazon-eventstream.html). A bigger length is a corrupt stream, not a wait.
 *
 * @example
 * if (length > MAX_EVENT_STREAM_MESSAGE) throw new Error('corrupt stream');
 */
export const MAX_EVENT_STREAM_MESSAGE = 16 * 1024 * 1024 + 128 * 1024 + 16;

const PRELUDE = 12;

/** CRC-32 (IEEE 802.3, as zlib), the checksum event-stream uses. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * The CRC-32 of bytes (IEEE polynomial, as zlib and event-stream compute it).
 *
 * @example
 * crc32(new TextEncoder().encode('123456789')); // 0xcbf43926
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = CRC_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A header value as decoded: strings as text, integers as numbers (64-bit ones as bigint), bytes and uuids as bytes.
 *
 * @example
 * const value: EventStreamHeaderValue = 'contentBlockDelta';
 */
export type EventStreamHeaderValue = boolean | number | bigint | string | Uint8Array | Date;

/**
 * One decoded message: its headers and payload.
 *
 * @example
 * const message: EventStreamMessage = { headers: { ':event-type': 'chunk', ':message-type': 'event' }, payload: new Uint8Array() };
 */
export interface EventStreamMessage {
  headers: Record<string, EventStreamHeaderValue>;
  payload: Uint8Array;
}

function fail(message: string): Error {
  return new Error(`Invalid AWS event stream: ${message}`);
}

/** Decodes the headers section of one message. */
function readHeaders(bytes: Uint8Array, start: number, end: number): Record<string, EventStreamHeaderValue> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = new TextDecoder();
  const headers: Record<string, EventStreamHeaderValue> = {};
  let at = start;
  const need = (n: number) => {
    if (at + n > end) throw fail('a header runs past the headers section');
  };
  while (at < end) {
    need(1);
    const nameLength = bytes[at++]!;
    need(nameLength + 1);
    const name = text.decode(bytes.subarray(at, at + nameLength));
    at += nameLength;
    const type = bytes[at++]!;
    let value: EventStreamHeaderValue;
    switch (type) {
      case 0:
        value = true;
        break;
      case 1:
        value = false;
        break;
      case 2:
        need(1);
        value = view.getInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = view.getInt16(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = view.getInt32(at);
        at += 4;
        break;
      case 5:
        need(8);
        value = view.getBigInt64(at);
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = view.getUint16(at);
        at += 2;
        need(length);
        const raw = bytes.slice(at, at + length);
        value = type === 7 ? text.decode(raw) : raw;
        at += length;
        break;
      }
      case 8:
        need(8);
        value = new Date(Number(view.getBigInt64(at)));
        at += 8;
        break;
      case 9:
        need(16);
        value = bytes.slice(at, at + 16);
        at += 16;
        break;
      default:
        throw fail(`unknown header value type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}

/**
 * Decodes event-stream messages from bytes cut anywhere: `push` returns the messages completed so far.
 * Holds at most one message (bounded by `MAX_EVENT_STREAM_MESSAGE`) plus the last chunk.
 *
 * @example
 * const decoder = createEventStreamDecoder();
 * for (const message of decoder.push(chunk)) console.log(message.headers[':event-type']);
 */
export function createEventStreamDecoder(): { push(bytes: Uint8Array): EventStreamMessage[]; flush(): void } {
  // Chunks kept as they came, joined only when a whole message is there (no O(n^2) re-copying).
  let chunks: Uint8Array[] = [];
  let buffered = 0;
  let need = PRELUDE;
  let total = 0;
  let broken: Error | undefined;

  const take = (length: number): Uint8Array => {
    const out = new Uint8Array(length);
    let filled = 0;
    let used = 0;
    while (filled < length) {
      const head = chunks[used]!;
      const n = Math.min(head.length, length - filled);
      out.set(head.subarray(0, n), filled);
      filled += n;
      if (n === head.length) used++;
      else chunks[used] = head.subarray(n);
    }
    // One splice per message, not one shift per chunk (a big message arrives in thousands of chunks).
    if (used > 0) chunks.splice(0, used);
    buffered -= length;
    return out;
  };

  const peekPrelude = (): Uint8Array => {
    const out = new Uint8Array(PRELUDE);
    let filled = 0;
    for (const chunk of chunks) {
      const used = Math.min(chunk.length, PRELUDE - filled);
      out.set(chunk.subarray(0, used), filled);
      filled += used;
      if (filled === PRELUDE) break;
    }
    return out;
  };

  return {
    push(bytes) {
      if (broken) throw broken;
      if (bytes.length > 0) {
        chunks.push(bytes);
        buffered += bytes.length;
      }
      const out: EventStreamMessage[] = [];
      try {
        read(out);
      } catch (error) {
        // Messages completed before the damage are handed out first; the error comes with the next call.
        if (out.length === 0) throw error;
        broken = error as Error;
      }
      return out;
    },
    flush() {
      if (broken) throw broken;
      if (buffered > 0) {
        const left = buffered;
        chunks = [];
        buffered = 0;
        throw fail(`the body ended inside a message (${left} bytes left over)`);
      }
    },
  };

  function read(out: EventStreamMessage[]) {
    while (buffered >= need) {
      if (total === 0) {
        const prelude = peekPrelude();
        const view = new DataView(prelude.buffer);
        const length = view.getUint32(0);
        if (view.getUint32(8) !== crc32(prelude, 0, 8)) throw fail('prelude checksum mismatch');
        if (length < PRELUDE + 4 || length > MAX_EVENT_STREAM_MESSAGE) throw fail(`a message of ${length} bytes`);
        if (view.getUint32(4) > length - PRELUDE - 4) throw fail('headers longer than the message');
        total = length;
        need = length;
        continue;
      }
      const message = take(total);
      const view = new DataView(message.buffer);
      if (view.getUint32(total - 4) !== crc32(message, 0, total - 4)) throw fail('message checksum mismatch');
      const headersEnd = PRELUDE + view.getUint32(4);
      out.push({ headers: readHeaders(message, PRELUDE, headersEnd), payload: message.subarray(headersEnd, total - 4) });
      total = 0;
      need = PRELUDE;
    }
  }
}

/**
 * The wire event a message stands for: `event` from `:event-type`, or from `:exception-type` for an
 * exception (its payload is `{"message": ...}`), or `:error-code` for an error message.
 *
 * @example
 * toWireEvent({ headers: { ':message-type': 'event', ':event-type': 'chunk' }, payload }); // { event: 'chunk', data: '{"bytes":"..."}' }
 */
export function toWireEvent(message: EventStreamMessage): WireEvent {
  const { headers } = message;
  const data = new TextDecoder().decode(message.payload);
  const kind = headers[':message-type'];
  if (kind === 'exception') return { event: String(headers[':exception-type'] ?? 'exception'), data };
  if (kind === 'error') {
    return { event: String(headers[':error-code'] ?? 'error'), data: JSON.stringify({ message: String(headers[':error-message'] ?? 'The provider reported an error') }) };
  }
  return { event: headers[':event-type'] === undefined ? undefined : String(headers[':event-type']), data };
}

/**
 * A dialect's byte framer over event-stream messages (what `ClientDialect.createByteFramer` returns).
 *
 * @example
 * const dialect = { ...getClientDialect('anthropic_messages'), createByteFramer: createEventStreamFramer };
 */
export function createEventStreamFramer(): ByteFramer {
  const decoder = createEventStreamDecoder();
  return {
    push: (bytes) => decoder.push(bytes).map(toWireEvent),
    flush: () => {
      decoder.flush();
      return [];
    },
  };
}
