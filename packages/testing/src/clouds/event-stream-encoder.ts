/**
 * Encodes AWS event-stream messages with the AWS SDK's own codec (@smithy/eventstream-codec), so a
 * mock's binary stream is byte for byte what Bedrock's framing is, checksums included.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/**
 * One event-stream message: an `event` (`:event-type`) or an `exception` (`:exception-type`) with a JSON payload.
 *
 * @example
 * const bytes = encodeEventStreamMessage('event', 'contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } });
 */
export function encodeEventStreamMessage(kind: 'event' | 'exception', type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: kind },
      [kind === 'event' ? ':event-type' : ':exception-type']: { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}
