export { anthropicMessagesEncoder, anthropicMessagesHttpError } from './anthropic-messages.ts';
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
export { googleGeminiEncoder, googleGeminiHttpError } from './google-gemini.ts';
export { ollamaChatEncoder, ollamaChatHttpError } from './ollama-chat.ts';
export { openaiCompletionsEncoder, openaiCompletionsHttpError } from './openai-completions.ts';
export { openaiResponsesEncoder, openaiResponsesHttpError } from './openai-responses.ts';
export { ndjsonLine, sseFrame, statusForCode, type WireEncoder, type WireEncoderOptions, type WireError, type WireHttpError } from './types.ts';
