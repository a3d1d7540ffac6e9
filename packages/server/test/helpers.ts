import { type Event, frameEventId } from '@parlance/protocol';
import { seededRandom } from '../../dialects/test/conformance.ts';
import type { ChatRunInput, ChatRunner } from '../src/handler.ts';

export interface Frame {
  id?: string;
  event?: string;
  data?: Event;
  comment?: string;
}

let streams = 0;

/**
 * Reads SSE frames from a response body as they arrive. Every chunk the network hands over is
 * cut again at random byte offsets (inside lines, ids and multibyte characters alike), so each
 * stream test also reads its stream cut at random boundaries.
 */
export async function* frames(response: Response, signal?: AbortSignal): AsyncGenerator<Frame> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const random = seededRandom(++streams);
  let buffer = '';
  let last: string | undefined;
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { done, value } = await reader.read();
      if (done) return;
      let from = 0;
      while (from < value.byteLength) {
        const to = Math.min(value.byteLength, from + 1 + Math.floor(random() * Math.max(1, value.byteLength / 3)));
        buffer += decoder.decode(value.subarray(from, to), { stream: true });
        from = to;
        let at = buffer.indexOf('\n\n');
        while (at >= 0) {
          const raw = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const frame: Frame = {};
          for (const line of raw.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('event: ')) frame.event = line.slice(7);
            else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6)) as Event;
          }
          // Ids as a client reads them: a delta sent without one follows the previous frame.
          if (frame.data) {
            const id = frameEventId(frame.id, frame.data, last);
            if (id !== undefined) last = frame.id = id;
          }
          yield frame;
          at = buffer.indexOf('\n\n');
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

export async function readAll(response: Response): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const frame of frames(response)) if (!frame.comment) out.push(frame);
  return out;
}

export function textOf(events: (Event | undefined)[]): string {
  return events.map((e) => (e?.type === 'text-delta' ? e.delta : '')).join('');
}

/** A gate a test opens to let a runner go on. */
export function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function wait(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/**
 * A runner that streams `words` as text deltas (waiting `delayMs` or a gate between them)
 * and honours the abort signal like the engine does: a `chat-finish` 'cancelled' with what was said.
 */
export function textRunner(words: string[], options: { delayMs?: number; gates?: Promise<void>[] } = {}) {
  const calls: ChatRunInput[] = [];
  const runner: ChatRunner = async function* (input) {
    calls.push(input);
    yield { type: 'step-start', step: 0 };
    yield { type: 'message-start' };
    yield { type: 'text-start', id: 't' };
    for (let i = 0; i < words.length; i++) {
      const g = options.gates?.[i];
      if (g) await Promise.race([g, new Promise((r) => input.signal.addEventListener('abort', r, { once: true }))]);
      else if (options.delayMs) await wait(options.delayMs, input.signal);
      if (input.signal.aborted) {
        yield { type: 'text-end', id: 't' };
        yield { type: 'finish', finishReason: 'cancelled', usage: {} };
        yield { type: 'chat-finish', haltReason: 'cancelled', usage: {} };
        return;
      }
      yield { type: 'text-delta', id: 't', delta: words[i]! };
    }
    yield { type: 'text-end', id: 't' };
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: words.length } };
    yield { type: 'step-finish', step: 0, finishReason: 'stop', usage: { inputTokens: 3, outputTokens: words.length } };
    yield { type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 3, outputTokens: words.length } };
  };
  return { runner, calls };
}

export const userThread = {
  version: 1,
  id: 'th_1',
  messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
};

export function chatRequest(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } };
}
