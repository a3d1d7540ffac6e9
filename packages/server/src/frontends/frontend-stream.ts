/**
 * One streaming response for both adapters: reads a run's stored events (pull-based, like the
 * protocol's own SSE route, so a slow reader never buffers the run twice), writes each event's
 * encoding, keeps the connection open with a heartbeat, and says how it ended.
 */
import { ParlanceError } from '@parlance/protocol';
import type { StoredEvent } from '../run-store.ts';

export interface FrameStreamOptions {
  /** The frames one stored event becomes (may be none). */
  encode: (stored: StoredEvent) => Uint8Array[];
  /** Frames after the run's last event (e.g. the AI SDK's `[DONE]`). */
  end?: () => Uint8Array[];
  /** Frames for a store that failed mid-stream. */
  failure: (error: ParlanceError) => Uint8Array[];
  /** A frame that keeps proxies from closing an idle stream (none for binary encodings). */
  heartbeat?: Uint8Array;
  heartbeatMs: number;
  headers: Record<string, string>;
  /** The reader went away before the run's last event. */
  onAbandon?: () => void;
  /** Every frame up to the run's last event was handed to the reader. */
  onDelivered?: () => void;
  onError?: (error: unknown) => void;
}

export function frameStream(follow: (signal: AbortSignal) => AsyncIterable<StoredEvent>, options: FrameStreamOptions): Response {
  const controller = new AbortController();
  const events = follow(controller.signal)[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const stop = () => {
    if (closed) return;
    closed = true;
    if (heartbeat !== undefined) clearInterval(heartbeat);
    if (!controller.signal.aborted) controller.abort();
  };
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      if (!options.heartbeat) return;
      heartbeat = setInterval(() => {
        try {
          stream.enqueue(options.heartbeat!);
        } catch {
          stop();
        }
      }, options.heartbeatMs);
    },
    async pull(stream) {
      try {
        // Read until an event gives frames: a pull that enqueues nothing would never be called again.
        for (;;) {
          const next = await events.next();
          if (closed) return;
          if (next.done) {
            for (const frame of options.end?.() ?? []) stream.enqueue(frame);
            stop();
            stream.close();
            options.onDelivered?.();
            return;
          }
          const frames = options.encode(next.value);
          for (const frame of frames) stream.enqueue(frame);
          if (frames.length) return;
        }
      } catch (error) {
        if (closed) return;
        stop();
        const failure = ParlanceError.isInstance(error) ? error : new ParlanceError('store_unavailable', 'The run store is not available');
        options.onError?.(error);
        for (const frame of options.failure(failure)) stream.enqueue(frame);
        stream.close();
      }
    },
    cancel() {
      const abandoned = !closed;
      stop();
      void events.return?.();
      if (abandoned) options.onAbandon?.();
    },
  });
  return new Response(body, { status: 200, headers: options.headers });
}
