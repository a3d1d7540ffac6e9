/**
 * The client half of the OpenAI Chat Completions dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import type { ClientDialect, WireEvent } from '../types.ts';
import { createDecoder } from './decode.ts';
import { encodeRequest } from './encode.ts';

/**
 * The client half of `openaiCompletions` (encode a request, decode the stream), what a provider that speaks it bundles.
 *
 * @example
 * openaiCompletionsClient.encodeRequest({ model: 'gpt-4.1', messages });
 */
export const openaiCompletionsClient: ClientDialect = {
  id: 'openai_completions',
  framing: 'sse',
  path: () => '/chat/completions',
  encodeRequest,
  createDecoder,
  replayBody: replayCompletionBody,
};

/**
 * A chat.completion (https://platform.openai.com/docs/api-reference/chat/object) is one chunk whose
 * choices carry the whole `message` as their `delta` (tool calls without `index` are read by position,
 * as from servers that send none), with the usage beside them; `[DONE]` ends it. An error body is
 * passed on as it is (the decoder reads `{"error": ...}` chunks).
 */
function replayCompletionBody(body: unknown): WireEvent[] {
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return [{ data: JSON.stringify(body) }, { data: '[DONE]' }];
  const chunk = {
    ...(body as object),
    choices: choices.map((choice: unknown) => {
      if (typeof choice !== 'object' || choice === null) return choice;
      const { message, ...rest } = choice as { message?: unknown };
      return { ...rest, delta: message ?? {} };
    }),
  };
  return [{ data: JSON.stringify(chunk) }, { data: '[DONE]' }];
}
