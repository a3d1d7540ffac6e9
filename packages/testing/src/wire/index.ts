export {
  createWireEncoder,
  encodeEventFrames,
  encodeEvents,
  encodeTurn,
  finalUsage,
  wireContentType,
  wireHttpError,
  type EncodeEventsOptions,
} from './encode.ts';
export type { WireEncoder, WireEncoderOptions, WireError, WireHttpError } from './types.ts';
