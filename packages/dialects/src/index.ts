export { anthropicMessages } from './anthropic-messages/index.ts';
export { ANTHROPIC_FILES_BETA } from './anthropic-messages/encode.ts';
export { createFramer, decodeDialectStream, type DecodeStreamOptions, type Framer } from './decode-stream.ts';
export { googleGemini } from './google-gemini/index.ts';
export { ollamaChat } from './ollama-chat/index.ts';
export { openaiCompletions } from './openai-completions/index.ts';
export { openaiResponses } from './openai-responses/index.ts';
export { anthropicMessagesClient } from './anthropic-messages/client.ts';
export { googleGeminiClient } from './google-gemini/client.ts';
export { ollamaChatClient } from './ollama-chat/client.ts';
export { openaiCompletionsClient } from './openai-completions/client.ts';
export { openaiResponsesClient } from './openai-responses/client.ts';
export { getClientDialect, isDialectId } from './client-registry.ts';
export { decodeStream, decodeText, getDialect } from './registry.ts';
export { modelPathSegment } from './shared/path-segment.ts';
export { parseToolInput, type StreamState } from './shared/stream-state.ts';
export { dropNullOptionals, strictJsonSchema, type StrictSchemaResult } from './shared/strict-schema.ts';
export { MISSING_TOOL_RESULT, repairToolPairs } from './shared/tool-pairs.ts';
export {
  DIALECT_IDS,
  type ClientDialect,
  type Decoder,
  type DecoderFailure,
  type DecoderOptions,
  type Dialect,
  type DialectId,
  type EncodeOptions,
  type EncodeWarning,
  type PathOptions,
  type ByteFramer,
  type WireEvent,
} from './types.ts';
export {
  encodeResponseStream,
  ndjsonLine,
  sseFrame,
  statusForCode,
  type EncodedHttpError,
  type ResponseEncoder,
  type ResponseEncoderOptions,
  type ResponseEncoding,
  type ResponseError,
} from './shared/response-encoding.ts';
export type { DecodedRequest, RequestDecodeOptions, RequestDecoding } from './shared/request-decoding.ts';
export { samplingRules, type SamplingRules } from './shared/sampling-rules.ts';
