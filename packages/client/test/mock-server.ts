/**
 * A mock Parlance server speaking the real HTTP protocol (the routes in
 * src/transport.ts), as an injectable `fetch`. Every run is an event log the test
 * drives: `push` events (paced by the test), `drop` connections, and let the
 * client cancel or resume with Last-Event-ID. Frames are built with the protocol's
 * `formatSseFrame`, and can be cut into chunks of N bytes to split frames (and
 * multibyte characters) anywhere.
 */
import { formatEventId, formatSseFrame, parseEventId, type Event, type HaltReason, type PendingInput, type Thread, type Usage } from '@parlance/protocol';
import type { ChatRequestBody } from '../src/transport.ts';

export interface MockRun {
  id: string;
  body: ChatRequestBody;
  log: Event[];
  finished: boolean;
  cancelled: boolean;
  push(...events: Event[]): void;
  finish(haltReason?: HaltReason, extra?: { usage?: Usage; thread?: Thread }): void;
  /** Cuts every open connection without chat-finish (a network drop). */
  drop(mode?: 'close' | 'error'): void;
  /** The server forgets the run (a store that restarted empty, or evicted it): a resume answers 404 or 410. */
  vanish(code: 'not_found' | 'run_expired'): void;
  connections: number;
}

export interface MockServerOptions {
  /** Called for every POST /chat, after the run exists (push events now or later). */
  onChat?: (run: MockRun) => void;
  /** Cut every frame into chunks of this many bytes. */
  chunkBytes?: number;
  /** Answer POST /chat with an error instead. */
  chatError?: (body: ChatRequestBody) => { status: number; code: string; message: string } | undefined;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export function createMockServer(options: MockServerOptions = {}) {
  const runs: MockRun[] = [];
  const requests: RecordedRequest[] = [];
  const encoder = new TextEncoder();
  let nextRun = 0;
  /** Opens a connection to a run's stream from a sequence number. */
  const openers = new WeakMap<MockRun, (from: number, signal?: AbortSignal | null) => ReadableStream<Uint8Array>>();
  /** Runs the server forgot (`vanish`). */
  const gone = new Map<string, 'not_found' | 'run_expired'>();

  function createRun(body: ChatRequestBody): MockRun {
    const connections = new Set<{ controller: ReadableStreamDefaultController<Uint8Array>; sent: number }>();
    const send = (c: { controller: ReadableStreamDefaultController<Uint8Array>; sent: number }) => {
      while (c.sent < run.log.length) {
        const bytes = encoder.encode(formatSseFrame(run.log[c.sent]!, formatEventId(c.sent)));
        const size = options.chunkBytes ?? bytes.length;
        for (let i = 0; i < bytes.length; i += size) c.controller.enqueue(bytes.slice(i, i + size));
        c.sent++;
      }
      if (run.finished) {
        c.controller.close();
        connections.delete(c);
      }
    };
    const run: MockRun = {
      id: `run_${++nextRun}`,
      body,
      log: [],
      finished: false,
      cancelled: false,
      get connections() {
        return connections.size;
      },
      push(...events) {
        if (run.finished) return;
        for (const event of events) {
          run.log.push(event);
          if (event.type === 'chat-finish') run.finished = true;
        }
        for (const c of [...connections]) send(c);
      },
      finish(haltReason = 'completed', extra = {}) {
        const event: Event = { type: 'chat-finish', haltReason, usage: extra.usage ?? {} };
        if (extra.thread) event.thread = extra.thread;
        run.push(event);
      },
      drop(mode = 'close') {
        for (const c of connections) mode === 'close' ? c.controller.close() : c.controller.error(new TypeError('network error'));
        connections.clear();
      },
      vanish(code) {
        run.drop();
        gone.set(run.id, code);
      },
    };
    openers.set(run, (from, signal) => {
      let c: { controller: ReadableStreamDefaultController<Uint8Array>; sent: number };
      return new ReadableStream<Uint8Array>({
        start(controller) {
          c = { controller, sent: from };
          connections.add(c);
          controller.enqueue(encoder.encode(': ping\n\n'));
          signal?.addEventListener('abort', () => {
            if (!connections.delete(c)) return;
            controller.error(new DOMException('The operation was aborted', 'AbortError'));
          });
          send(c);
        },
        cancel() {
          connections.delete(c);
        },
      });
    });
    return run;
  }

  const open = (run: MockRun, from: number, signal?: AbortSignal | null) => openers.get(run)!(from, signal);
  const sse = (run: MockRun, stream: ReadableStream<Uint8Array>) =>
    new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-parlance-run-id': run.id } });

  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), 'http://mock.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    requests.push({ method, path: url.pathname, headers, body });
    if (init.signal?.aborted) throw new DOMException('The operation was aborted', 'AbortError');
    await Promise.resolve();
    const path = url.pathname.replace(/^\/api/, '');
    if (method === 'POST' && path === '/chat') {
      const error = options.chatError?.(body);
      if (error) return json(error.status, { error: { code: error.code, message: error.message } });
      const run = createRun(body);
      runs.push(run);
      const stream = open(run, 0, init.signal);
      options.onChat?.(run);
      return sse(run, stream);
    }
    const m = /^\/runs\/([^/]+)\/(events|cancel)$/.exec(path);
    const run = m && runs.find((r) => r.id === decodeURIComponent(m[1]!));
    const vanished = run && gone.get(run.id);
    if (vanished) return json(vanished === 'not_found' ? 404 : 410, { error: { code: vanished, message: `Run ${run!.id} is gone` } });
    if (m && !run) return json(404, { error: { code: 'not_found', message: `Unknown run ${m[1]}` } });
    if (run && m![2] === 'events' && method === 'GET') {
      const last = parseEventId(headers['last-event-id']);
      return sse(run, open(run, last && (last.runId ?? run.id) === run.id ? last.sequence + 1 : 0, init.signal));
    }
    if (run && m![2] === 'cancel' && method === 'POST') {
      run.cancelled = true;
      queueMicrotask(() => run.finish('cancelled'));
      return json(202, { ok: true });
    }
    if (method === 'GET' && path === '/models') return json(200, { models: [{ id: 'fake-1', provider: 'fake', name: 'Fake One', capabilities: { input: ['text'] } }] });
    return json(404, { error: { code: 'not_found', message: `No route ${method} ${path}` } });
  };

  return { fetch: fetch as typeof globalThis.fetch, runs, requests };
}

/** The events of one assistant answer streamed as the given deltas (server-assigned message id). */
export function answer(messageId: string, deltas: string[], step = 0): Event[] {
  return [
    { type: 'step-start', step },
    { type: 'message-start', messageId },
    { type: 'text-start', id: 't0' },
    ...deltas.map((delta): Event => ({ type: 'text-delta', id: 't0', delta })),
    { type: 'text-end', id: 't0' },
    { type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: deltas.length } },
    { type: 'step-finish', step, finishReason: 'stop', usage: { inputTokens: 3, outputTokens: deltas.length } },
  ];
}

/** Waits until `check` holds, polling on timers (the client's work is all promise- and timer-driven). */
export async function until(check: () => unknown, timeoutMs = 2000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${check}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/**
 * The events of an answer that calls tools and pauses for them, as the engine emits them: the
 * calls, the approval / question events, then `run-paused` (which the fold writes into the thread).
 * Follow with `run.finish(haltReason)`.
 */
export function pausedTurn(messageId: string, waitingFor: (Omit<PendingInput, 'name'> & { name?: string })[]): Event[] {
  const events: Event[] = [{ type: 'step-start', step: 0 }, { type: 'message-start', messageId }];
  const pending = waitingFor.map((p) => ({ ...p, name: p.name ?? 'tool', input: p.input ?? {} }));
  for (const p of pending) events.push({ type: 'tool-call-start', id: p.toolCallId, name: p.name }, { type: 'tool-call-end', id: p.toolCallId, input: p.input });
  events.push({ type: 'finish', finishReason: 'tool-calls', usage: {} });
  for (const p of pending) {
    if (p.kind === 'approval') events.push({ type: 'approval-requested', toolCallId: p.toolCallId, name: p.name, input: p.input });
    if (p.kind === 'ask-user') events.push({ type: 'ask-user', toolCallId: p.toolCallId, question: p.question ?? '' });
  }
  events.push({ type: 'run-paused', waitingFor: pending });
  return events;
}
