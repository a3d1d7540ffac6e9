/**
 * The client half of the Anthropic Messages dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import type { ClientDialect } from '../types.ts';
import { createAnthropicDecoder } from './decode.ts';
import { anthropicRequestHeaders, encodeAnthropicRequest } from './encode.ts';

/** The client half of `anthropicMessages`. */
export const anthropicMessagesClient: ClientDialect = {
  id: 'anthropic_messages',
  framing: 'sse',
  path: () => '/v1/messages',
  encodeRequest: encodeAnthropicRequest,
  requestHeaders: anthropicRequestHeaders,
  createDecoder: () => createAnthropicDecoder(),
};
