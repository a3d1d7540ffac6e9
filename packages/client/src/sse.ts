/**
 * Reads a Parlance SSE body: one protocol event per frame, `id: <runId>:<seq>` (a delta without
 * one is numbered from the frame before it: `frameEventId`).
 * Decoding is eventsource-parser's (comments such as `: ping` are skipped there);
 * bytes are decoded with a streaming TextDecoder so a multibyte character split
 * across chunks survives. Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import { EVENT_TYPES, frameEventId, leanReader, ParlanceError, type Event } from '@parlance/protocol';
import { createParser } from 'eventsource-parser';

/**
 * What `readSse` calls for each event, with its resumable id.
 *
 * @example
 * const onEvent: FrameHandler = (event, id) => console.log(id, event.type);
 */
export type FrameHandler = (event: Event, id: string | undefined) => void;

/**
 * Reads a Parlance SSE body, calling `onEvent` for each protocol event with its resumable id; throws a typed error on a malformed frame.
 * `wire: 2` for a response that says `X-Parlance-Wire: 2` (`wireOfResponse`), so what wire 2 leaves out is put back.
 *
 * @example
 * await readSse(response.body, (event, id) => { lastId = id ?? lastId; handle(event); });
 */
export async function readSse(body: ReadableStream<Uint8Array> | null, onEvent: FrameHandler, options: { wire?: 1 | 2 } = {}): Promise<void> {
  if (!body) throw new ParlanceError('invalid_response', 'The response has no body');
  let failure: ParlanceError | undefined;
  let last: string | undefined;
  // Wire 2 (the server said `X-Parlance-Wire: 2`) leaves out what the reader puts back (a repeated provenance).
  const lean = options.wire === 2 ? leanReader() : undefined;
  const parser = createParser({
    onEvent(frame) {
      if (failure) return;
      let event: Event;
      try {
        event = JSON.parse(frame.data);
      } catch (cause) {
        failure = new ParlanceError('invalid_response', `An event is not JSON: ${frame.data.slice(0, 80)}`, { cause });
        return;
      }
      // An event type from a newer server is skipped, not fatal.
      const id = frameEventId(frame.id, event ?? {}, last);
      if (id !== undefined) last = id;
      if ((EVENT_TYPES as readonly string[]).includes(event?.type)) onEvent(lean ? lean.read(event) : event, id);
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure) throw failure;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * The SSE wire a response was written in: 2 when the server says `X-Parlance-Wire: 2`, else 1.
 *
 * @example
 * await readSse(response.body, onEvent, { wire: wireOfResponse(response) });
 */
export function wireOfResponse(response: Response): 1 | 2 {
  return response.headers.get('x-parlance-wire') === '2' ? 2 : 1;
}
