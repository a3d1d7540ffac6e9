/**
 * Amazon Bedrock's framing of the Messages stream. InvokeModelWithResponseStream carries
 * each Messages event base64-encoded in a `{"bytes": ...}` chunk (`{"chunk": {"bytes": ...}}`
 * as the AWS SDKs print it), and its failures as exception events (`throttlingException`,
 * `modelStreamErrorException`, ...) named by a payload key or by the event name.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html
 */
import type { ErrorCode } from '@parlance/protocol';
import type { DecoderFailure } from '../types.ts';

type Json = Record<string, unknown>;

const EXCEPTIONS: Record<string, ErrorCode> = {
  internalServerException: 'server_error',
  modelStreamErrorException: 'server_error',
  modelTimeoutException: 'timeout',
  serviceUnavailableException: 'overloaded',
  throttlingException: 'rate_limited',
  validationException: 'invalid_request',
};

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isException = (name: string) => Object.hasOwn(EXCEPTIONS, name);

/** Base64 -> UTF-8 text with web-standard globals only (the dialect runs in browsers and workers). */
function decodeBase64(value: string): string {
  const binary = atob(value);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

/**
 * The Messages event a payload holds (the payload itself when it is not wrapped), or the
 * failure a Bedrock exception reports. Throws on a chunk that does not hold JSON (the
 * decoder turns that into `invalid_response`).
 */
export function unwrapBedrock(payload: Json, eventName: string | undefined): { payload: Json } | { failure: DecoderFailure } {
  if (payload.type !== undefined) return { payload };
  const chunk = isObject(payload.chunk) ? payload.chunk : payload;
  if (typeof chunk.bytes === 'string') {
    const inner: unknown = JSON.parse(decodeBase64(chunk.bytes));
    if (!isObject(inner)) throw new Error('a Bedrock chunk that is not a JSON object');
    return { payload: inner };
  }
  const key = eventName && isException(eventName) ? eventName : Object.keys(payload).find(isException);
  if (!key) return { payload };
  const body = key === eventName ? payload : isObject(payload[key]) ? payload[key] : {};
  const message =
    (typeof body.message === 'string' && body.message) ||
    (typeof body.originalMessage === 'string' && body.originalMessage) ||
    'The provider reported an error';
  const failure: DecoderFailure = { code: EXCEPTIONS[key]!, message: `${key}: ${message}` };
  if (typeof body.originalStatusCode === 'number') failure.status = body.originalStatusCode;
  return { failure };
}
