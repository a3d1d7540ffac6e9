/**
 * The chat's one reducer: every state change is an action. Protocol events go
 * through the protocol's own fold (`reduceEvents`); this only adds what a chat
 * needs around it (status, the run cursor, the queue). What a paused run waits for
 * is not kept here: it is derived from the thread with the protocol's `pendingInputs`
 * (the fold writes the pause into the thread), so a reloaded thread still knows it.
 */
import type { UploadProgress } from './attachments.ts';
import {
  createFoldState,
  parseEventId,
  pendingInputs,
  reduceEvents,
  runMessages,
  type ErrorPayload,
  type Event,
  type FoldState,
  type HaltReason,
  type Message,
  type PendingInput,
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
 * Something a paused run waits for from the browser: the protocol's type, kind 'approval' | 'client-tool' | 'ask-user'.
 *
 * @example
 * const { pending } = useChat({ api: '/api/chat' });
 * pending.filter((p) => p.kind === 'approval').map((p) => p.name);
 */
export type { PendingInput };

/**
 * The run being streamed, in memory: its cursor with the whole fold (messages included). A delta
 * folds into `fold` only; `unsettled` says the thread has not taken the fold's messages yet (it does
 * at publication, see `settle`), so a delta costs the same at any thread length. After a reload the
 * fold is rebuilt from the server's first event: until it reaches the saved point (`replayUntil`,
 * a sequence number) the thread keeps showing what was saved, so the answer never shrinks on screen.
 *
 * @example
 * const { run } = store.getSnapshot();
 * if (run) console.log(run.runId, run.lastEventId);
 */
export interface LiveRun extends RunCursor {
  fold: FoldState;
  unsettled?: boolean;
  replayUntil?: number;
}

/**
 * A chat's state: the thread, status, error, the run being streamed, what a paused run waits for
 * (and whether sending is refused meanwhile), the queue, usage.
 *
 * @example
 * const { status, pending, sendBlocked, thread } = store.getSnapshot();
 */
export interface ChatState {
  thread: Thread;
  status: ChatStatus;
  error?: ErrorPayload;
  /** The run being streamed (kept after a connection failure so `retry` resumes it). */
  run?: LiveRun;
  /** What the paused run waits for: `pendingInputs(thread.messages)`, empty while a run is in flight. */
  pending: PendingInput[];
  /** Why `send()` is refused right now (the run is paused: answer `pending` first), or nothing. */
  sendBlocked?: ErrorPayload;
  /** Messages sent while a response streamed, sent when it ends. */
  queue: Message[];
  /** Stored messages that failed validation on load, set aside. */
  quarantined: QuarantinedMessage[];
  /**
   * Why this chat is not being saved: code `storage` while saves fail (the storage is full, a write
   * was cut off; cleared by the next save that succeeds), or why its stored record could not be read.
   */
  persistError?: ErrorPayload;
  /** The thread was deleted (here or in another tab): nothing is saved, `send()` is refused (`sendBlocked`). */
  deleted?: true;
  haltReason?: HaltReason;
  usage?: Usage;
  /** The files `send({ files })` is uploading, with the bytes sent so far (absent when none). */
  uploads?: UploadProgress[];
}

/**
 * What changes a chat's state (see `chatReducer`).
 *
 * @example
 * const next = chatReducer(state, { type: 'thread', thread: loaded } satisfies ChatAction);
 */
export type ChatAction =
  | { type: 'load'; record?: ChatRecord; persistError?: ErrorPayload }
  | { type: 'thread'; thread: Thread }
  | { type: 'submit'; messages: Message[] }
  | { type: 'queue'; message: Message }
  | { type: 'run'; runId?: string }
  | { type: 'event'; event: Event; id?: string | undefined }
  | { type: 'fail'; error: ErrorPayload }
  | { type: 'stopped' }
  /** Another tab's copy merged in (the run, if any, goes on). */
  | { type: 'merge'; thread: Thread }
  | { type: 'deleted' }
  /** A save failed (`error`) or succeeded again (no `error`). */
  | { type: 'persist'; error?: ErrorPayload }
  | { type: 'uploads'; uploads: UploadProgress[] };

/**
 * The sequence of an event id. One remembered entry: per delta the reducer compares the new id with
 * the run's last one, which is the id it parsed the event before, so each id is parsed once.
 */
let seqMemo: [string | undefined, number] = [undefined, -1];
const seq = (id: string | undefined): number => {
  if (id === seqMemo[0]) return seqMemo[1];
  const sequence = parseEventId(id)?.sequence ?? -1;
  seqMemo = [id, sequence];
  return sequence;
};

/** Events that change only the text or arguments being streamed (`*-delta`, `usage`): folded into the run, not yet into the thread. */
const isDelta = (type: Event['type']) => type.endsWith('-delta') || type === 'usage';

/** The state with the thread holding everything the run folded (once per publication, not per delta). */
export function settle(state: ChatState): ChatState {
  const run = state.run;
  if (!run?.unsettled) return state;
  return { ...state, thread: { ...state.thread, messages: run.fold.messages }, run: { ...run, unsettled: false } };
}

/** The run's cursor as stored: no fold state (a reload refolds the run from the server's events). */
export function cursorOf({ runId, lastEventId, after }: LiveRun): RunCursor {
  const cursor: RunCursor = { runId };
  if (lastEventId !== undefined) cursor.lastEventId = lastEventId;
  if (after !== undefined) cursor.after = after;
  return cursor;
}

/** Keeps the old object of every message the server's (or another tab's) thread did not change, so it does not re-render. */
export function share(prev: Message[], next: Message[]): Message[] {
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

/**
 * A run started on `messages`: what follows the last of them is the run's output. The fold starts
 * where the server's does (`runMessages`), so the two fold the same events to the same thread.
 */
function startRun(runId: string, given: Message[]): LiveRun {
  const messages = runMessages(given);
  const run: LiveRun = { runId, fold: createFoldState(messages) };
  const after = messages.at(-1)?.id;
  if (after !== undefined) run.after = after;
  return run;
}

/** The messages a run was started with (up to and including `after`), or undefined if `after` is gone. */
export function runInput(messages: Message[], after: string | undefined): Message[] | undefined {
  if (after === undefined) return [];
  const i = messages.findIndex((m) => m.id === after);
  return i < 0 ? undefined : messages.slice(0, i + 1);
}

const DELETED: ErrorPayload = { code: 'not_found', message: 'This chat was deleted', retryable: false };

const WAITING_FOR: Record<PendingInput['kind'], string> = { approval: 'an approval', 'ask-user': 'an answer', 'client-tool': 'a tool result' };

/** Why sending is refused while the run waits (named after the first input it waits for). */
function sendBlocked([first]: PendingInput[]): ErrorPayload | undefined {
  return first && { code: 'run_paused', message: `The run is waiting for ${WAITING_FOR[first.kind]}`, retryable: false };
}

/** Fills in what is derived from the thread: what a paused run waits for, and whether sending is refused. */
function derive(prev: ChatState | undefined, next: ChatState): ChatState {
  if (prev && prev.thread.messages === next.thread.messages && prev.status === next.status && next.pending === prev.pending && prev.deleted === next.deleted) return next;
  const inFlight = next.status === 'loading' || next.status === 'submitted' || next.status === 'streaming';
  const out: ChatState = { ...next, pending: inFlight ? [] : pendingInputs(next.thread.messages) };
  const blocked = next.deleted ? DELETED : sendBlocked(out.pending);
  if (blocked) out.sendBlocked = blocked;
  else delete out.sendBlocked;
  return out;
}

/**
 * The chat's state changes, as a pure reducer over `ChatAction`s (what `ChatStore` dispatches).
 *
 * @example
 * const next = chatReducer(state, { type: 'submit', messages: [message] });
 */
export function chatReducer(current: ChatState, action: ChatAction): ChatState {
  const state = action.type === 'event' ? current : settle(current);
  return derive(state, reduce(state, action));
}

/** A first state with what is derived filled in (a store built on a thread that is already paused). */
export const initialChatState = (state: ChatState): ChatState => derive(undefined, state);

function reduce(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'load': {
      const r = action.record;
      const next: ChatState = { ...state, status: 'ready' };
      if (action.persistError) next.persistError = action.persistError;
      if (!r) return next;
      Object.assign(next, { thread: r.thread, queue: r.queue ?? [], quarantined: r.quarantined ?? [] });
      const input = r.run && runInput(r.thread.messages, r.run.after);
      if (r.run && input) {
        // Refold the run from the server's first event (no Last-Event-ID); show it from the saved point on.
        const run = startRun(r.run.runId, input);
        run.replayUntil = seq(r.run.lastEventId);
        next.run = run;
        next.status = 'streaming';
      }
      return next;
    }
    case 'thread': {
      const { run, error, haltReason, ...rest } = state;
      return { ...rest, thread: action.thread, status: 'ready' };
    }
    case 'submit': {
      const { error, haltReason, run, ...rest } = state;
      const thread = { ...state.thread, messages: [...state.thread.messages, ...action.messages] };
      return { ...rest, thread, status: 'submitted', queue: state.queue.filter((m) => !action.messages.includes(m)) };
    }
    case 'queue':
      return { ...state, queue: [...state.queue, action.message] };
    case 'run': {
      const { error, ...rest } = state;
      const run = action.runId ? startRun(action.runId, state.thread.messages) : state.run;
      return run ? { ...rest, status: 'streaming', run } : state;
    }
    case 'event':
      return foldEvent(state, action.event, action.id);
    case 'fail': {
      const next: ChatState = { ...state, status: 'error', error: action.error };
      // A turn that failed before its run started (the POST was refused, or never answered) leaves
      // its error in the thread, so the next message is not merged into this one (see the engine's
      // withoutFailedTurns). A run that is still known can be resumed: nothing failed in the thread.
      const last = state.thread.messages.at(-1);
      if (!state.run && (state.status === 'submitted' || state.status === 'streaming') && last?.role === 'user') {
        const failed: Message = { id: `${last.id}-failed`, role: 'assistant', parts: [], error: action.error };
        next.thread = { ...state.thread, messages: [...state.thread.messages, failed] };
      }
      return next;
    }
    case 'stopped': {
      const { run, ...rest } = state;
      return { ...rest, status: 'ready', haltReason: 'cancelled' };
    }
    case 'merge':
      return { ...state, thread: { ...action.thread, messages: share(state.thread.messages, action.thread.messages) } };
    case 'deleted': {
      const { run, error, ...rest } = state;
      return { ...rest, status: 'ready', queue: [], deleted: true };
    }
    case 'persist': {
      const { persistError, ...rest } = state;
      return action.error ? { ...rest, persistError: action.error } : persistError?.code === 'storage' ? rest : state;
    }
    case 'uploads': {
      const { uploads: _, ...rest } = state;
      return action.uploads.length ? { ...rest, uploads: action.uploads } : rest;
    }
  }
}

function foldEvent(state: ChatState, event: Event, id: string | undefined): ChatState {
  const { run } = state;
  // Frames from an ended run, or replayed ones (a resume overlapping what was folded), change nothing.
  // The run's last id first: it is the one parsed for the event before (see `seq`).
  if (!run || (id !== undefined && seq(run.lastEventId) >= seq(id))) return state;
  const fold = reduceEvents(run.fold, event);
  // `unsettled: false` rather than `delete`: deleting a property makes V8 give the object a slow shape, per delta.
  const live: LiveRun = { ...run, fold, unsettled: false };
  if (id !== undefined) live.lastEventId = id;
  const next: ChatState = { ...state, status: 'streaming', run: live };
  // Refolding after a reload: the thread keeps what was saved until the fold has caught up with it.
  if (run.replayUntil !== undefined) {
    if (event.type !== 'chat-finish' && seq(id) < run.replayUntil) return next;
    delete live.replayUntil;
    next.thread = { ...state.thread, messages: share(state.thread.messages, fold.messages) };
  } else if (isDelta(event.type)) {
    // A delta stops here: nothing that grows with the thread runs per delta.
    live.unsettled = true;
    return next;
  } else next.thread = { ...state.thread, messages: fold.messages };
  if (event.type !== 'chat-finish') return next;
  delete next.run;
  const halt = event.haltReason;
  // The thread is what the events folded to. A server that sends its thread anyway holds the active
  // path only; the other versions stay the client's.
  if (event.thread) next.thread = { ...event.thread, messages: share(next.thread.messages, event.thread.messages), ...(state.thread.branches ? { branches: state.thread.branches } : {}) };
  else if (event.metadata) next.thread = { ...next.thread, metadata: event.metadata };
  next.haltReason = halt;
  next.usage = event.usage;
  next.status = halt === 'error' ? 'error' : 'ready';
  if (halt === 'error') next.error = { code: 'unknown', message: 'The run failed', retryable: false, ...fold.error, ...event.error };
  return next;
}
