/**
 * The SSE response: one protocol event per frame with a resumable `id:` (left off most deltas, see
 * the protocol's `sendsEventId`), a
 * heartbeat comment so proxies and load balancers keep the connection open, and
 * the headers that stop proxies from buffering or compressing the stream.
 */
import { errorEvent, formatEventId, formatLeanFrame, formatSseFrame, type LeanFrame, leanWire, ParlanceError, sendsEventId, takeReady } from '@parlance/protocol';
import type { StoredEvent } from './run-store.ts';

/**
 * The headers of a Parlance SSE response (no buffering, no compression, no caching).
 *
 * @example
 * return new Response(stream, { headers: SSE_HEADERS });
 */
export const SSE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  // Tell compression middleware there is nothing to do: compressed SSE is buffered SSE.
  'Content-Encoding': 'identity',
  Connection: 'keep-alive',
};

/**
 * How often a silent stream sends a `: ping` comment by default: 8 s, below the strictest idle
 * limit of the runtimes and proxies a Parlance server runs behind. Bun's `Bun.serve()` closes a
 * request idle for 10 s (its `idleTimeout` default); Deno's `Deno.serve`, Node's `http` server and
 * Cloudflare Workers set no idle limit on a streaming response, but Cloudflare's proxy ends a
 * response idle for 100 s, nginx's `proxy_read_timeout` and AWS ALB's idle timeout are 60 s, and
 * Heroku's router 55 s. One ping is 8 bytes on the wire.
 *
 * @example
 * createParlanceApp({ models, run, heartbeatMs: DEFAULT_HEARTBEAT_MS / 2 }); // behind a 5 s proxy
 */
export const DEFAULT_HEARTBEAT_MS = 8_000;

export interface SseOptions {
  runId: string;
  heartbeatMs: number;
  headers?: Record<string, string>;
  /** Gets a failure of the event source (the client is sent a typed `error` frame). */
  onError?: (error: unknown) => void;
  /** Called when the client goes away (the run itself goes on). */
  onClose?: () => void;
  /** The SSE wire the client asked for (`wireOf(accept)`): 1 (default), or 2, lean (the protocol's lean-wire.ts). */
  wire?: 1 | 2;
}

/** A coalesced chunk stops growing at about this many characters. */
const COALESCE_BYTES = 64 * 1024;
const TURN = Symbol('turn');
/** Runs `f` once the event loop has turned (setImmediate where there is one: Node; else a 0 ms timer: Workers). */
const afterTurn: (f: () => void) => void = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate ?? ((f) => setTimeout(f, 0));

/**
 * A run's events as an SSE response: resumable ids, heartbeats, a typed error frame if the source fails.
 *
 * @example
 * return sseResponse((signal) => store.follow(runId, afterSeq, signal), { runId, heartbeatMs: DEFAULT_HEARTBEAT_MS });
 */
export function sseResponse(
  follow: (signal: AbortSignal) => AsyncIterable<StoredEvent>,
  options: SseOptions,
): Response {
  const encoder = new TextEncoder();
  const controller = new AbortController();
  const events = follow(controller.signal)[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  /** The first frame of a response always names its event, so a reader can number the id-less deltas after it. */
  let first = true;
  /** An event asked for while coalescing that had not arrived by the end of the turn: the next pull's. */
  let pending: Promise<IteratorResult<StoredEvent>> | undefined;
  const lean = options.wire === 2 ? leanWire() : undefined;
  const stop = () => {
    if (closed) return;
    closed = true;
    if (heartbeat !== undefined) clearInterval(heartbeat);
    if (!controller.signal.aborted) controller.abort();
    options.onClose?.();
  };
  // Pull-based: the next event is read from the store only when the client has taken
  // the previous one, so a slow reader never builds a second copy of the run in memory.
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      heartbeat = setInterval(() => {
        try {
          stream.enqueue(encoder.encode(': ping\n\n'));
        } catch {
          stop();
        }
      }, options.heartbeatMs);
    },
    async pull(stream) {
      // Frames already waiting when this pull starts, plus those that become ready before the
      // event loop turns (one `setImmediate`), go out as one chunk: one write instead of one per
      // frame. The first frame of a response is sent alone and at once (no added latency to the
      // first token); a chunk is bounded (COALESCE_BYTES).
      let text = '';
      const leanFrames = (frames: LeanFrame[]) => {
        for (const out of frames) text += formatLeanFrame(out);
        if (frames.length > 0) first = false;
      };
      const frame = ({ seq, event }: StoredEvent) => {
        if (lean) return leanFrames(lean.frames(event, seq));
        text += formatSseFrame(event, sendsEventId(event, seq, first) ? formatEventId(seq) : undefined);
        first = false;
      };
      try {
        let sendAtOnce = first;
        // Until a frame is written: wire 2 leaves some events out.
        while (text === '') {
          // What the store's reader holds already (the protocol's ready-iterator.ts), else a wait.
          const ready = pending ? undefined : takeReady(events);
          const next = ready !== undefined ? { done: false as const, value: ready } : await (pending ?? events.next());
          pending = undefined;
          if (closed) return;
          if (next.done) {
            // What wire 2 held (a start waiting for the event after it) goes out before the end.
            if (lean) leanFrames(lean.flush());
            if (text !== '') stream.enqueue(encoder.encode(text));
            stop();
            stream.close();
            return;
          }
          sendAtOnce = first;
          frame(next.value);
        }
        if (!sendAtOnce) {
          let turn: Promise<typeof TURN> | undefined;
          while (text.length < COALESCE_BYTES) {
            const held = takeReady(events);
            if (held !== undefined) {
              frame(held);
              continue;
            }
            turn ??= new Promise<typeof TURN>((resolve) => afterTurn(() => resolve(TURN)));
            pending = events.next();
            // Awaited by the next pull if not here; never an unhandled rejection if the client leaves first.
            pending.catch(() => {});
            const ready = await Promise.race([pending, turn]);
            if (ready === TURN || closed) break;
            pending = undefined;
            if (ready.done) {
              // Seen again by the next pull, which closes the stream.
              pending = Promise.resolve(ready);
              break;
            }
            frame(ready.value);
          }
        }
        stream.enqueue(encoder.encode(text));
      } catch (error) {
        pending = undefined;
        if (closed) return;
        stop();
        // The store failed (e.g. Redis went away): say so in a typed frame with no id, so the
        // client keeps what it has and resumes from its last id once the store is back.
        const failure = ParlanceError.isInstance(error) ? error : new ParlanceError('store_unavailable', 'The run store is not available');
        options.onError?.(error);
        stream.enqueue(encoder.encode(text + formatSseFrame(errorEvent(failure))));
        stream.close();
      }
    },
    cancel() {
      stop();
      void events.return?.();
    },
  });
  const wire: Record<string, string> = lean ? { 'X-Parlance-Wire': '2' } : {};
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers, ...wire, 'X-Parlance-Run-Id': options.runId } });
}
