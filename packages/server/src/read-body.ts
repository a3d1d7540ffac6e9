/** Reading a request body with a byte limit. */
import { errorResponse } from './error-response.ts';

/** The body as text, or a 413 once it is larger than `limit` bytes (declared or read). */
export async function readBody(request: Request, limit: number): Promise<string | Response> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    return errorResponse(413, 'invalid_request', `The request body is larger than ${limit} bytes`);
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return errorResponse(413, 'invalid_request', `The request body is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
