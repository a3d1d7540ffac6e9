// Reads the SSE frames of a Parlance response (https://html.spec.whatwg.org/multipage/server-sent-events.html):
// `id:` and `data:` lines, frames split by a blank line, comments (heartbeats) skipped.
import { type Event, frameEventId } from '@parlance/protocol';

export interface Frame {
  id?: string;
  data: Event;
}

function parseFrame(raw: string): Frame | undefined {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of raw.split('\n')) {
    if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return undefined;
  const frame: Frame = { data: JSON.parse(data.join('\n')) as Event };
  if (id !== undefined) frame.id = id;
  return frame;
}

/** Frames as they arrive; `stats.chunks` counts the body reads it took. */
export async function* frames(response: Response, stats: { chunks: number } = { chunks: 0 }): AsyncGenerator<Frame> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let lastId: string | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      stats.chunks++;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let at = buffer.indexOf('\n\n');
      while (at >= 0) {
        const frame = parseFrame(buffer.slice(0, at));
        buffer = buffer.slice(at + 2);
        if (frame) {
          // A delta sent without an id follows the frame before it.
          const id = frameEventId(frame.id, frame.data, lastId);
          if (id !== undefined) lastId = frame.id = id;
          yield frame;
        }
        at = buffer.indexOf('\n\n');
      }
    }
    const last = buffer.trim() ? parseFrame(buffer) : undefined;
    if (last) yield last;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Every frame left in `stream`. */
export async function drain(stream: AsyncIterable<Frame>): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const frame of stream) out.push(frame);
  return out;
}

export async function readFrames(response: Response): Promise<{ frames: Frame[]; chunks: number }> {
  const stats = { chunks: 0 };
  const out = await drain(frames(response, stats));
  return { frames: out, chunks: stats.chunks };
}

export function textOf(list: Frame[]): string {
  return list.map((f) => (f.data.type === 'text-delta' ? f.data.delta : '')).join('');
}

export function reasoningOf(list: Frame[]): string {
  return list.map((f) => (f.data.type === 'reasoning-delta' ? f.data.delta : '')).join('');
}

export function chatBody(text: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
    clientRequestId: crypto.randomUUID(),
    ...extra,
  });
}
