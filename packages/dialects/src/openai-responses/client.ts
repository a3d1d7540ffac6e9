/**
 * The client half of the OpenAI Responses dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import type { ClientDialect, WireEvent } from '../types.ts';
import { createResponsesDecoder } from './decode.ts';
import { encodeResponsesRequest } from './encode.ts';

/**
 * The client half of `openaiResponses` (encode a request, decode the stream), what a provider that speaks it bundles.
 *
 * @example
 * openaiResponsesClient.encodeRequest({ model: 'gpt-5-mini', messages });
 */
export const openaiResponsesClient: ClientDialect = {
  id: 'openai_responses',
  framing: 'sse',
  path: () => '/responses',
  encodeRequest: encodeResponsesRequest,
  createDecoder: () => createResponsesDecoder(),
  replayBody: replayResponsesBody,
};

const FINAL_EVENT: Record<string, string> = { completed: 'response.completed', incomplete: 'response.incomplete', failed: 'response.failed', cancelled: 'response.completed' };

/**
 * A Response object (https://platform.openai.com/docs/api-reference/responses/object) is what
 * `response.created` and the final event of a stream carry; the decoder takes items that had no
 * `output_item.done` from the final response's `output` (as for servers that send only that).
 * The final event follows the status (`completed`, `incomplete`, `failed`). An error body is passed on.
 */
function replayResponsesBody(body: unknown): WireEvent[] {
  const status = (body as { status?: unknown } | null)?.status;
  if (typeof body !== 'object' || body === null || (body as { object?: unknown }).object !== 'response') return [{ event: 'error', data: JSON.stringify(body) }];
  const final = (typeof status === 'string' ? FINAL_EVENT[status] : undefined) ?? 'response.completed';
  return [
    { event: 'response.created', data: JSON.stringify({ type: 'response.created', response: body }) },
    { event: final, data: JSON.stringify({ type: final, response: body }) },
  ];
}
