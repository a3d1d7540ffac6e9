/**
 * The SSE response: one protocol event per frame with a resumable `id:`, a
 * heartbeat comment so proxies and load balancers keep the connection open, and
 * the headers that stop proxies from buffering or compressing the stream.
 */
import { formatEventId, formatSseFrame } from '@parlance/protocol';
import type { StoredEvent } from './run-store.ts';

export const SSE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  // Tell compression middleware there is nothing to do: compressed SSE is buffered SSE.
  'Content-Encoding': 'identity',
  Connection: 'keep-alive',
};

export interface SseOptions {
  runId: string;
  heartbeatMs: number;
  headers?: Record<string, string>;
  /** Called when the client goes away (the run itself goes on). */
  onClose?: () => void;
}

export function sseResponse(
  follow: (signal: AbortSignal) => AsyncIterable<StoredEvent>,
  options: SseOptions,
): Response {
  const encoder = new TextEncoder();
  const controller = new AbortController();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    heartbeat = undefined;
    if (!controller.signal.aborted) controller.abort();
  };
  const body = new ReadableStream<Uint8Array>({
    async start(stream) {
      heartbeat = setInterval(() => {
        try {
          stream.enqueue(encoder.encode(': ping\n\n'));
        } catch {
          stop();
        }
      }, options.heartbeatMs);
      try {
        for await (const { seq, event } of follow(controller.signal)) {
          stream.enqueue(encoder.encode(formatSseFrame(event, formatEventId(options.runId, seq))));
        }
        stop();
        stream.close();
      } catch (error) {
        stop();
        if (!controller.signal.aborted) stream.error(error);
      } finally {
        options.onClose?.();
      }
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers, 'X-Parlance-Run-Id': options.runId } });
}
