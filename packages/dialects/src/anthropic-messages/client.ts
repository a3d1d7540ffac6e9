/**
 * The client half of the Anthropic Messages dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import type { ClientDialect, WireEvent } from '../types.ts';
import { createAnthropicDecoder } from './decode.ts';
import { anthropicRequestHeaders, encodeAnthropicRequest } from './encode.ts';

/**
 * The client half of `anthropicMessages` (encode a request, decode the stream), what a provider that speaks it bundles.
 *
 * @example
 * anthropicMessagesClient.encodeRequest({ model: 'claude-sonnet-4-5', messages });
 */
export const anthropicMessagesClient: ClientDialect = {
  id: 'anthropic_messages',
  framing: 'sse',
  path: () => '/v1/messages',
  encodeRequest: encodeAnthropicRequest,
  requestHeaders: anthropicRequestHeaders,
  createDecoder: (options) => createAnthropicDecoder(options),
  replayBody: replayAnthropicBody,
};

/**
 * A Message body (https://docs.anthropic.com/en/api/messages) is what a stream's `message_start`
 * would carry had the content been complete: the decoder reads whole blocks there (as for a resumed
 * turn), with the stop reason and the usage; `message_stop` ends it. An error body stays an error.
 */
function replayAnthropicBody(body: unknown): WireEvent[] {
  const data = JSON.stringify(body);
  if (typeof body !== 'object' || body === null || (body as { type?: unknown }).type !== 'message') return [{ event: 'error', data }];
  return [
    { event: 'message_start', data: JSON.stringify({ type: 'message_start', message: body }) },
    { event: 'message_stop', data: '{"type":"message_stop"}' },
  ];
}
