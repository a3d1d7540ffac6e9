/**
 * The chat's one reducer: every state change is an action. Protocol events go
 * through the protocol's own fold (`reduceEvents`); this only adds what a chat
 * needs around it (status, the run cursor, what a paused run waits for, the queue).
 */
import {
  createFoldState,
  parseEventId,
  pendingInputs,
  reduceEvents,
  type ErrorPayload,
  type Event,
  type FoldState,
  type HaltReason,
  type Message,
  type QuarantinedMessage,
  type Thread,
  type Usage,
} from '@parlance/protocol';
import type { ChatRecord, RunCursor } from './persist.ts';

/**
 * Where a chat is: loading its stored thread, ready, submitted (waiting for the first event), streaming, or error.
 *
 * @example
 * const busy = (status: ChatStatus) => status === 'submitted' || status === 'streaming';
 */
export type ChatStatus = 'loading' | 'ready' | 'submitted' | 'streaming' | 'error';

/**
 * Something a paused run waits for from the browser.
 *
 * @example
 * const { pending } = useChat({ api: '/api/chat' });
 * pending.filter((p) => p.kind === 'approval').map((p) => p.name);
 */
export interface PendingInput {
  kind: 'tool-call' | 'approval' | 'ask-user';
  toolCallId: string;
  name?: string;
  input?: unknown;
  question?: string;
}

/**
 * The run being streamed, in memory: its cursor with the whole fold (messages included). A delta
 * folds into `fold` only; `unsettled` says the thread has not taken the fold's messages yet (it does
 * at publication, see `settle`), so a delta costs the same at any thread length.
 */
export interface LiveRun extends RunCursor {
  fold: FoldState;
  unsettled?: boolean;
}

/**
 * A chat's state: the thread, status, error, the run being streamed, what a paused run waits for, the queue, usage.
 *
 * @example
 * const { status, pending, thread } = store.getSnapshot();
 */
export interface ChatState {
  thread: Thread;
  status: ChatStatus;
  error?: ErrorPayload;
  /** The run being streamed (kept after a connection failure so `retry` resumes it). */
  run?: LiveRun;
  pending: PendingInput[];
  /** Messages sent while a response streamed, sent when it ends. */
  queue: Message[];
  /** Stored messages that failed validation on load, set aside. */
  quarantined: QuarantinedMessage[];
  haltReason?: HaltReason;
  usage?: Usage;
}

/**
 * What changes a chat's state (see `chatReducer`).
 *
 * @example
 * const next = chatReducer(state, { type: 'thread', thread: loaded } satisfies ChatAction);
 */
export type ChatAction =
  | { type: 'load'; record?: ChatRecord }
  | { type: 'thread'; thread: Thread }
  | { type: 'submit'; messages: Message[] }
  | { type: 'queue'; message: Message }
  | { type: 'run'; runId?: string }
  | { type: 'event'; event: Event; id?: string | undefined }
  | { type: 'fail'; error: ErrorPayload }
  | { type: 'stopped' };

const seq = (id: string | undefined) => parseEventId(id)?.sequence ?? -1;

/** Events that change only the text or arguments being streamed (`*-delta`, `usage`): folded into the run, not yet into the thread. */
const isDelta = (type: Event['type']) => type.endsWith('-delta') || type === 'usage';

/** The state with the thread holding everything the run folded (once per publication, not per delta). */
export function settle(state: ChatState): ChatState {
  const run = state.run;
  if (!run?.unsettled) return state;
  return { ...state, thread: { ...state.thread, messages: run.fold.messages }, run: { ...run, unsettled: false } };
}

/** The run's cursor as stored: the fold without its messages (they are the thread's). Runs per save, not per delta. */
export function cursorOf({ unsettled, fold: { messages, ...fold }, ...cursor }: LiveRun): RunCursor {
  return { ...cursor, fold };
}

/** What a saved thread's paused run still waits for (its signed `pause`), so a reload can answer it. */
export function pausedOn(messages: readonly Message[]): PendingInput[] {
  return pendingInputs(messages).map(({ kind, ...rest }) => ({ ...rest, kind: kind === 'client-tool' ? 'tool-call' : kind }));
}

/** Keeps the old object of every message the server's thread did not change, so it does not re-render. */
function share(prev: Message[], next: Message[]): Message[] {
  const old = new Map(prev.map((m) => [m.id, m]));
  return next.map((m) => {
    const o = old.get(m.id);
    return o && same(o, m) ? o : m;
  });
}

/** Whether two JSON values are equal as JSON (a key holding `undefined` counts as absent); no string is built. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    keys++;
    if (!same(x[k], y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined) keys--;
  return keys === 0;
}

/** Tool calls of the last turn that no result answers (a run halted for client tools). */
function unanswered(messages: Message[]): PendingInput[] {
  const answered = new Set<string>();
  const calls: PendingInput[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role !== 'user'; i--)
    for (const p of messages[i]!.parts) {
      if (p.type === 'tool-result') answered.add(p.toolCallId);
      else if (p.type === 'tool-call' && !p.providerExecuted) calls.unshift({ kind: 'tool-call', toolCallId: p.id, name: p.name, input: p.input });
    }
  return calls.filter((c) => !answered.has(c.toolCallId));
}

/**
 * The chat's state changes, as a pure reducer over `ChatAction`s (what `ChatStore` dispatches).
 *
 * @example
 * const next = chatReducer(state, { type: 'submit', messages: [message] });
 */
export function chatReducer(current: ChatState, action: ChatAction): ChatState {
  const state = action.type === 'event' ? current : settle(current);
  switch (action.type) {
    case 'load': {
      const r = action.record;
      if (!r) return { ...state, status: 'ready' };
      const next: ChatState = { ...state, thread: r.thread, status: r.run ? 'streaming' : 'ready', queue: r.queue ?? [], quarantined: r.quarantined ?? [] };
      if (r.run) next.run = { ...r.run, fold: { ...r.run.fold, messages: r.thread.messages } };
      else next.pending = pausedOn(r.thread.messages);
      return next;
    }
    case 'thread': {
      const { run, error, haltReason, ...rest } = state;
      return { ...rest, thread: action.thread, status: 'ready', pending: pausedOn(action.thread.messages) };
    }
    case 'submit': {
      const { error, haltReason, run, ...rest } = state;
      const thread = { ...state.thread, messages: [...state.thread.messages, ...action.messages] };
      return { ...rest, thread, status: 'submitted', pending: [], queue: state.queue.filter((m) => !action.messages.includes(m)) };
    }
    case 'queue':
      return { ...state, queue: [...state.queue, action.message] };
    case 'run': {
      const { error, ...rest } = state;
      const run = action.runId ? { runId: action.runId, fold: createFoldState(state.thread.messages) } : state.run;
      return run ? { ...rest, status: 'streaming', run } : state;
    }
    case 'event': {
      const { run } = state;
      const { event, id } = action;
      // Frames from an ended run, or replayed ones (a resume overlapping what was folded), change nothing.
      if (!run || (id !== undefined && seq(id) <= seq(run.lastEventId))) return state;
      const fold = reduceEvents(run.fold, event);
      const live: LiveRun = { runId: run.runId, fold };
      const lastEventId = id ?? run.lastEventId;
      if (lastEventId !== undefined) live.lastEventId = lastEventId;
      const next: ChatState = { ...state, status: 'streaming', run: live };
      // A delta stops here: nothing that grows with the thread runs per delta.
      if (isDelta(event.type)) {
        live.unsettled = true;
        return next;
      }
      const messages = fold.messages;
      next.thread = { ...state.thread, messages };
      if (event.type === 'approval-requested')
        next.pending = [...state.pending, { kind: 'approval', toolCallId: event.toolCallId, name: event.name, input: event.input }];
      else if (event.type === 'ask-user') next.pending = [...state.pending, { kind: 'ask-user', toolCallId: event.toolCallId, question: event.question }];
      else if (event.type === 'chat-finish') {
        delete next.run;
        const halt = event.haltReason;
        // The server holds the active path only; the other versions stay the client's.
        if (event.thread) next.thread = { ...event.thread, messages: share(messages, event.thread.messages), ...(state.thread.branches ? { branches: state.thread.branches } : {}) };
        const known = new Set(state.pending.map((p) => p.toolCallId));
        next.pending =
          halt === 'client-tool-calls'
            ? [...state.pending, ...unanswered(next.thread.messages).filter((p) => !known.has(p.toolCallId))]
            : halt === 'approval' || halt === 'ask-user'
              ? state.pending
              : [];
        next.haltReason = halt;
        next.usage = event.usage;
        next.status = halt === 'error' ? 'error' : 'ready';
        const error = event.error ?? fold.error;
        if (halt === 'error') next.error = error ? { retryable: false, ...fold.error, ...error } : { code: 'unknown', message: 'The run failed', retryable: false };
      }
      return next;
    }
    case 'fail':
      return { ...state, status: 'error', error: action.error };
    case 'stopped': {
      const { run, ...rest } = state;
      return { ...rest, status: 'ready', pending: [], haltReason: 'cancelled' };
    }
  }
}
