/**
 * `@parlance/dialects/bedrock-converse`: Amazon Bedrock's Converse wire (ConverseStream request body and
 * stream) and AWS event-stream binary framing. Client side only: Bedrock is a provider to call, not a
 * dialect a server speaks, so it has no id among `DIALECT_IDS` and no request decoding or response encoding.
 */
import type { ClientDialect } from '../types.ts';
import { createConverseDecoder } from './converse-decode.ts';
import { CONVERSE, encodeConverseRequest } from './converse-encode.ts';
import { createEventStreamFramer } from './event-stream.ts';

/**
 * The Converse wire as a client dialect (its path is the provider's: `/model/{modelId}/converse-stream`).
 *
 * @example
 * const wire: BedrockConverseDialect = { ...bedrockConverse, path: () => `/model/${encodeURIComponent(modelId)}/converse-stream` };
 */
export type BedrockConverseDialect = Omit<ClientDialect, 'id'> & { id: typeof CONVERSE };

/**
 * Bedrock Converse: encode a ConverseStream body, decode its event-stream framed events.
 *
 * @example
 * const events = decodeText(bedrockConverse as unknown as ClientDialect, bytes);
 */
export const bedrockConverse: BedrockConverseDialect = {
  id: CONVERSE,
  framing: 'sse',
  path: (model) => `/model/${encodeURIComponent(model)}/converse-stream`,
  encodeRequest: encodeConverseRequest,
  createDecoder: createConverseDecoder,
  createByteFramer: createEventStreamFramer,
};

export { CONVERSE_EXCEPTIONS, converseFinishReason, createConverseDecoder } from './converse-decode.ts';
export { CONVERSE, encodeConverseRequest } from './converse-encode.ts';
export {
  MAX_EVENT_STREAM_MESSAGE,
  crc32,
  createEventStreamDecoder,
  createEventStreamFramer,
  toWireEvent,
  type EventStreamHeaderValue,
  type EventStreamMessage,
} from './event-stream.ts';
