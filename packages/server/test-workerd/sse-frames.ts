// The frames of a Parlance SSE response, with each event's id (a delta sent without one follows the
// frame before it: the protocol's frameEventId).
import { type Event, frameEventId } from '@parlance/protocol';

export interface Frame {
  id: string;
  event: Event;
}

export async function* sseFrames(res: Response): AsyncGenerator<Frame> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let last: string | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
        const frame = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (!data) continue;
        const event = JSON.parse(data) as Event;
        const id = frameEventId(/^id: (.*)$/m.exec(frame)?.[1], event, last);
        if (id) yield { id: (last = id), event };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
