/**
 * The client half of the OpenAI Responses dialect (encode a request, decode the stream), without the
 * server half (request decoding, response encoding), so an app that only calls providers does not bundle it.
 */
import type { ClientDialect } from '../types.ts';
import { createResponsesDecoder } from './decode.ts';
import { encodeResponsesRequest } from './encode.ts';

/** The client half of `openaiResponses`. */
export const openaiResponsesClient: ClientDialect = {
  id: 'openai_responses',
  framing: 'sse',
  path: () => '/responses',
  encodeRequest: encodeResponsesRequest,
  createDecoder: () => createResponsesDecoder(),
};
