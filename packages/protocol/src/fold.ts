/**
 * The one fold. The engine, the server and the browser all turn events into
 * messages with `reduceEvents`; nobody writes a second one.
 *
 * The state is immutable from the outside: each event returns a new state that
 * shares every message it did not touch, so a UI can re-render only what changed.
 * Folding a delta costs the same whatever the thread's length (see `Fold`).
 * Tool-call arguments are accumulated as a string (V8 concatenation is amortised
 * O(1)) and parsed once at `tool-call-end`, never per fragment.
 */
import type { ErrorPayload } from './error.ts';
import type { Event } from './events.ts';
import type { FinishReason, HaltReason } from './finish.ts';
import type { Message, Part } from './message.ts';
import type { RunPause } from './pause.ts';
import type { Response } from './response.ts';
import type { Thread } from './thread-shape.ts';
import { runMessages } from './thread.ts';
import { addUsage, mergeUsage, type Usage } from './usage.ts';

interface BlockRef {
  message: number;
  part: number;
  /** Tool-call arguments received so far. */
  inputText?: string;
  open: boolean;
}

/**
 * What the fold holds: the messages so far, the open blocks, usage, the finish reason (see `reduceEvents`).
 *
 * @example
 * let state: FoldState = createFoldState();
 */
export interface FoldState {
  /** Messages before the stream (if any) followed by the ones it produced. */
  messages: Message[];
  /** Index in `messages` of the assistant message being streamed, or -1. */
  current: number;
  /** Blocks of the current message by block id. */
  blocks: Record<string, BlockRef>;
  /** Usage of the current response. */
  usage: Usage;
  /** Usage of every finished response in this stream. */
  totalUsage: Usage;
  responseId?: string;
  model?: string;
  finishReason?: FinishReason;
  rawFinishReason?: string;
  error?: ErrorPayload;
  /** Warnings of the current response (settings not sent: `warning` events). */
  warnings?: string[];
  /** Latest partial structured-output object. */
  object?: unknown;
  haltReason?: HaltReason;
  /** Number of events folded (the server's and client's resume cursor). */
  count: number;
}

/**
 * An empty fold, or one that continues a thread's messages.
 *
 * @example
 * let state = createFoldState(thread.messages);
 * for (const event of events) state = reduceEvents(state, event);
 */
export function createFoldState(messages: Message[] = []): FoldState {
  return Fold.of(messages);
}

/** How many message slots the fold has copied (materialising `messages`); internal, read by the fold's complexity test. */
export const foldWork = { messagesCopied: 0 };

/**
 * The fold's state, built per event without copying the thread: it keeps the
 * messages it started from (`#base`, never written) and the one message this
 * event sequence is writing (`#at`/`#msg`). `messages` is materialised, once, when
 * read. An event touching only the current message (every delta) costs the same
 * at 10 or 10,000 prior messages; moving to another message (a new message, a
 * tool message, a pause) copies the array once. Each event still returns a new
 * state and no earlier state ever changes, so states stay immutable from outside.
 */
class Fold implements FoldState {
  declare messages: Message[];
  current = -1;
  blocks: Record<string, BlockRef> = {};
  usage: Usage = {};
  totalUsage: Usage = {};
  count = 0;
  declare responseId?: string;
  declare model?: string;
  declare finishReason?: FinishReason;
  declare rawFinishReason?: string;
  declare error?: ErrorPayload;
  declare warnings?: string[];
  declare object?: unknown;
  declare haltReason?: HaltReason;
  #base: Message[] = [];
  /** Index of the message written over `#base` (may be `#base.length`: appended), or -1. */
  #at = -1;
  #msg: Message | undefined;
  #cached: Message[] | undefined;

  static #desc: PropertyDescriptor = {
    get(this: Fold) {
      return this.#all();
    },
    enumerable: true,
    configurable: true,
  };

  constructor() {
    Object.defineProperty(this, 'messages', Fold.#desc);
  }

  static of(messages: Message[]): Fold {
    const f = new Fold();
    f.#base = messages;
    return f;
  }

  /** A state of the caller's (a `Fold`, or a plain object such as a persisted cursor plus messages) as a `Fold`. */
  static from(state: FoldState): Fold {
    if (state instanceof Fold) return state;
    const { messages, ...rest } = state;
    return Object.assign(Fold.of(messages), rest);
  }

  /** The next state (count + 1), to be written by the event being folded. `newResponse` drops the last response's finish and warnings. */
  next(newResponse = false): Fold {
    const f = new Fold();
    f.current = this.current;
    f.blocks = this.blocks;
    f.usage = this.usage;
    f.totalUsage = this.totalUsage;
    f.count = this.count + 1;
    if (this.responseId !== undefined) f.responseId = this.responseId;
    if (this.model !== undefined) f.model = this.model;
    if (!newResponse) {
      if (this.finishReason !== undefined) f.finishReason = this.finishReason;
      if (this.rawFinishReason !== undefined) f.rawFinishReason = this.rawFinishReason;
      if (this.warnings !== undefined) f.warnings = this.warnings;
    }
    if (this.error !== undefined) f.error = this.error;
    if (this.object !== undefined) f.object = this.object;
    if (this.haltReason !== undefined) f.haltReason = this.haltReason;
    if (this.#cached) f.#base = this.#cached;
    else {
      f.#base = this.#base;
      f.#at = this.#at;
      f.#msg = this.#msg;
    }
    return f;
  }

  get length(): number {
    return this.#at < this.#base.length ? this.#base.length : this.#at + 1;
  }

  message(index: number): Message | undefined {
    return index === this.#at ? this.#msg : this.#base[index];
  }

  /** Writes message `index` (or appends at `length`); only a fresh state from `next()` is written. */
  setMessage(index: number, message: Message): void {
    if (this.#at !== -1 && this.#at !== index) {
      this.#base = this.#all();
      this.#at = -1;
    }
    this.#cached = undefined;
    this.#at = index;
    this.#msg = message;
  }

  /** Keeps the first `length` messages (a withdrawn message is dropped); copies the array once. */
  truncate(length: number): void {
    this.#base = this.#all().slice(0, length);
    this.#at = -1;
    this.#msg = undefined;
    this.#cached = undefined;
  }

  #all(): Message[] {
    if (this.#at === -1) return this.#base;
    if (this.#cached) return this.#cached;
    const messages = this.#base.slice();
    foldWork.messagesCopied += messages.length;
    messages[this.#at] = this.#msg!;
    return (this.#cached = messages);
  }

}

function replacePart(state: Fold, ref: BlockRef, update: (part: Part) => Part): void {
  const message = state.message(ref.message)!;
  const parts = message.parts.slice();
  parts[ref.part] = update(parts[ref.part]!);
  state.setMessage(ref.message, { ...message, parts });
}

/** Ensures there is a current assistant message (a stream may start a block without `message-start`). */
function ensureCurrent(state: Fold): void {
  if (state.current >= 0) return;
  const length = state.length;
  state.setMessage(length, { id: `msg-${length}`, role: 'assistant', parts: [] });
  state.current = length;
  state.blocks = {};
}

function appendPart(state: Fold, part: Part, blockId?: string, inputText?: string): void {
  ensureCurrent(state);
  const message = state.message(state.current)!;
  state.setMessage(state.current, { ...message, parts: [...message.parts, part] });
  if (blockId === undefined) return;
  const ref: BlockRef = { message: state.current, part: message.parts.length, open: true };
  if (inputText !== undefined) ref.inputText = inputText;
  state.blocks = { ...state.blocks, [blockId]: ref };
}

function withState<T extends Part>(part: T, providerState: Part['providerState']): T {
  if (providerState === undefined) return part;
  return { ...part, providerState: { ...part.providerState, ...providerState } };
}

/** Parses complete tool arguments; a provider that sends nothing means "no arguments". */
function parseInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The one fold: applies one event to the state (the engine, the client and `useStream` all use it).
 *
 * @example
 * let state = createFoldState();
 * for await (const event of decodeStream('openai_responses', body)) state = reduceEvents(state, event);
 * const { message, usage } = toResponse(state);
 */
export function reduceEvents(previous: FoldState, event: Event): FoldState {
  const prev = Fold.from(previous);
  const state = prev.next(event.type === 'message-start');
  switch (event.type) {
    case 'message-start': {
      const length = state.length;
      const message: Message = { id: event.messageId ?? `msg-${length}`, role: 'assistant', parts: [] };
      if (event.provenance) message.provenance = event.provenance;
      state.setMessage(length, message);
      state.current = length;
      state.blocks = {};
      state.usage = event.usage ? mergeUsage({}, event.usage) : {};
      if (event.responseId !== undefined) state.responseId = event.responseId;
      if (event.model !== undefined) state.model = event.model;
      return state;
    }
    case 'text-start':
      appendPart(state, withState({ type: 'text', text: '' }, event.providerState), event.id);
      return state;
    case 'reasoning-start':
      appendPart(state, withState({ type: 'reasoning', text: '' }, event.providerState), event.id);
      return state;
    case 'text-delta':
    case 'reasoning-delta': {
      let ref = state.blocks[event.id];
      if (!ref) {
        // A delta without its start: open the block rather than drop text.
        appendPart(state, { type: event.type === 'text-delta' ? 'text' : 'reasoning', text: '' }, event.id);
        ref = state.blocks[event.id]!;
      }
      replacePart(state, ref, (part) => (part.type === 'text' || part.type === 'reasoning' ? { ...part, text: part.text + event.delta } : part));
      return state;
    }
    case 'text-end':
    case 'reasoning-end': {
      const ref = state.blocks[event.id];
      if (!ref) return state;
      replacePart(state, ref, (part) => {
        let next = withState(part, event.providerState);
        if (event.type === 'reasoning-end' && next.type === 'reasoning') {
          if (event.signature !== undefined) next = { ...next, signature: event.signature };
          if (event.redacted) next = { ...next, redacted: true };
        }
        return next;
      });
      state.blocks = { ...state.blocks, [event.id]: { ...ref, open: false } };
      return state;
    }
    case 'tool-call-start': {
      const part: Part = withState({ type: 'tool-call', id: event.id, name: event.name, input: undefined }, event.providerState);
      if (event.providerExecuted) (part as { providerExecuted?: boolean }).providerExecuted = true;
      appendPart(state, part, event.id, '');
      return state;
    }
    case 'tool-call-delta': {
      const ref = state.blocks[event.id];
      if (!ref) return state;
      state.blocks = { ...state.blocks, [event.id]: { ...ref, inputText: (ref.inputText ?? '') + event.delta } };
      return state;
    }
    case 'tool-call-end': {
      let ref = state.blocks[event.id];
      if (!ref) {
        // An end without a start (a provider that sends whole calls): the call is still real.
        appendPart(state, { type: 'tool-call', id: event.id, name: '', input: undefined }, event.id, '');
        ref = state.blocks[event.id]!;
      }
      replacePart(state, ref, (part) => {
        if (part.type !== 'tool-call') return part;
        const next = withState({ ...part, input: event.input }, event.providerState);
        if (event.signature !== undefined) next.signature = event.signature;
        return next;
      });
      state.blocks = { ...state.blocks, [event.id]: { ...ref, open: false } };
      return state;
    }
    case 'tool-result': {
      const part: Part = withState(
        { type: 'tool-result', toolCallId: event.toolCallId, name: event.name, output: event.output },
        event.providerState,
      );
      if (event.isError) part.isError = true;
      if (event.signature !== undefined) part.signature = event.signature;
      if (event.providerExecuted) {
        part.providerExecuted = true;
        appendPart(state, part);
        return state;
      }
      // Local results go in a tool message right after the assistant message that asked.
      const length = state.length;
      const last = state.message(length - 1);
      if (last && last.role === 'tool') state.setMessage(length - 1, { ...last, parts: [...last.parts, part] });
      else state.setMessage(length, { id: event.messageId ?? `msg-${length}`, role: 'tool', parts: [part] });
      return state;
    }
    case 'source': {
      const part: Part = withState({ type: 'source', url: event.url }, event.providerState);
      if (event.title !== undefined) part.title = event.title;
      appendPart(state, part);
      return state;
    }
    case 'file': {
      const base = event.url !== undefined ? { url: event.url } : { data: event.data ?? '' };
      const part = withState({ type: 'file', mediaType: event.mediaType, ...base } as Part, event.providerState);
      if (event.filename !== undefined) (part as { filename?: string }).filename = event.filename;
      appendPart(state, part);
      return state;
    }
    case 'usage':
      state.usage = mergeUsage(state.usage, event.usage);
      return state;
    case 'finish': {
      const usage = mergeUsage(state.usage, event.usage);
      closeOpenBlocks(state);
      state.usage = usage;
      state.totalUsage = addUsage(state.totalUsage, usage);
      state.finishReason = event.finishReason;
      if (event.rawFinishReason !== undefined) state.rawFinishReason = event.rawFinishReason;
      return state;
    }
    case 'error': {
      const error: ErrorPayload = { code: event.code, message: event.message, retryable: event.retryable };
      if (event.status !== undefined) error.status = event.status;
      if (event.retryAfterMs !== undefined) error.retryAfterMs = event.retryAfterMs;
      state.error = error;
      return state;
    }
    case 'warning':
      state.warnings = [...(state.warnings ?? []), event.message];
      return state;
    case 'compaction':
      appendPart(state, withState({ type: 'compaction', text: event.text }, event.providerState));
      return state;
    case 'object-delta':
      state.object = event.object;
      return state;
    case 'summary':
      state.setMessage(state.length, { id: event.messageId, role: 'user', parts: [{ type: 'summary', text: event.text, through: event.through }] });
      return state;
    case 'chat-finish':
      closeOpenBlocks(state);
      state.haltReason = event.haltReason;
      state.totalUsage = event.usage;
      if (event.haltReason === 'error') failOn(state, { code: 'unknown', message: 'The run failed', retryable: false, ...state.error, ...event.error });
      return state;
    case 'run-paused':
      pauseOn(state, event);
      return state;
    case 'message-metadata':
      annotate(state, event);
      return state;
    case 'step-restarted':
      withdraw(state, event.messageId);
      return state;
    case 'step-start':
    case 'step-finish':
    case 'approval-requested':
    case 'ask-user':
      return state;
    default:
      return assertNever(event);
  }
}

/**
 * A step that begins again on another instance withdraws the message it was streaming: it is
 * dropped with anything after it (nothing follows it within a step but the message itself), and
 * the fold waits for the step's new `message-start`. An id the fold does not hold changes nothing
 * but that (a reader that joined after the message was withdrawn).
 */
function withdraw(state: Fold, messageId: string | undefined): void {
  if (messageId !== undefined) {
    for (let i = state.length - 1; i >= 0; i--) {
      if (state.message(i)!.id !== messageId) continue;
      state.truncate(i);
      break;
    }
  }
  state.current = -1;
  state.blocks = {};
  state.usage = {};
  delete state.finishReason;
  delete state.rawFinishReason;
  delete state.warnings;
  delete state.object;
}

function pauseOn(state: Fold, event: Extract<Event, { type: 'run-paused' }>): void {
  for (let i = state.length - 1; i >= 0; i--) {
    const m = state.message(i)!;
    if (event.messageId !== undefined ? m.id === event.messageId : m.role === 'assistant') {
      const pause: RunPause = { waitingFor: event.waitingFor };
      if (event.signature !== undefined) pause.signature = event.signature;
      state.setMessage(i, { ...m, pause });
      return;
    }
  }
}

/** Merges metadata into the named message (default: the one streaming, else the last); an unknown id changes nothing. */
function annotate(state: Fold, event: Extract<Event, { type: 'message-metadata' }>): void {
  let i = event.messageId === undefined ? (state.current >= 0 ? state.current : state.length - 1) : state.length - 1;
  if (event.messageId !== undefined) while (i >= 0 && state.message(i)!.id !== event.messageId) i--;
  const m = state.message(i);
  if (m) state.setMessage(i, { ...m, metadata: { ...m.metadata, ...event.metadata } });
}

/**
 * A failed run leaves its error on the message that failed (the one streaming, or a new empty
 * assistant message when it failed before one started), so a saved thread shows the failure and a
 * model request can leave the failed turn out instead of merging the next user message into it.
 */
function failOn(state: Fold, error: ErrorPayload): void {
  ensureCurrent(state);
  state.setMessage(state.current, { ...state.message(state.current)!, error });
}

function assertNever(value: never): never {
  throw new Error(`Unknown event: ${JSON.stringify(value)}`);
}

/** Closes blocks left open (a cut stream): keeps their text, parses what arguments arrived. Writes `state` (a fresh one). */
function closeOpenBlocks(state: Fold): void {
  let blocks: Record<string, BlockRef> | undefined;
  for (const id in state.blocks) {
    const ref = state.blocks[id]!;
    if (!ref.open) continue;
    blocks ??= { ...state.blocks };
    blocks[id] = { ...ref, open: false };
    if (ref.inputText === undefined) continue;
    const input = parseInput(ref.inputText);
    replacePart(state, ref, (part) => (part.type === 'tool-call' && part.input === undefined ? { ...part, input } : part));
  }
  if (blocks) state.blocks = blocks;
}

/**
 * Folds a synchronous sequence of events.
 *
 * @example
 * const state = foldEvents(decodeText('ollama_chat', recorded));
 * console.log(toResponse(state).finishReason);
 */
export function foldEvents(events: Iterable<Event>, initial: FoldState = createFoldState()): FoldState {
  let state = initial;
  for (const event of events) state = reduceEvents(state, event);
  return state;
}

/**
 * The thread a run leaves: the thread it was sent with the run's events folded onto it (every
 * event, from the first), what the browser client does as it streams, for a caller that reads
 * a whole response at once. A server does not send the thread back; a `chat-finish` that carries
 * one (the request sent bare `messages`) is taken as it is, and its `metadata` becomes the
 * thread's.
 *
 * @example
 * // `events`: every event of the run's response, parsed from its SSE frames
 * const next = threadAfterRun(sent, events);
 * await db.saveThread(next);
 */
export function threadAfterRun(thread: Thread, events: Iterable<Event>): Thread {
  const fold = createThreadFold(thread);
  for (const event of events) fold.push(event);
  return fold.thread();
}

/**
 * `threadAfterRun` one event at a time, for a reader that follows a run as it streams (a server
 * keeping the thread its browser ends with, say).
 *
 * @example
 * const fold = createThreadFold(sent);
 * for await (const event of events) fold.push(event);
 * await db.saveThread(fold.thread());
 */
export function createThreadFold(thread: Thread): { push(event: Event): void; thread(): Thread } {
  let state = createFoldState(runMessages(thread.messages));
  let sent: Thread | undefined;
  let metadata = thread.metadata;
  return {
    push(event) {
      state = reduceEvents(state, event);
      if (event.type !== 'chat-finish') return;
      if (event.thread) sent = event.thread;
      if (event.metadata) metadata = event.metadata;
    },
    thread() {
      if (sent) return sent;
      const out: Thread = { ...thread, messages: state.messages };
      if (metadata) out.metadata = metadata;
      return out;
    },
  };
}

/**
 * The Response a folded stream amounts to. A stream that ended without `finish`
 * is an `invalid_response` error, with everything received kept.
 *
 * @example
 * const { message, usage, finishReason } = toResponse(state);
 */
export function toResponse(folded: FoldState): Response {
  const state = Fold.from(folded).next();
  closeOpenBlocks(state);
  const message: Message = state.message(state.current) ?? { id: `msg-${state.length}`, role: 'assistant', parts: [] };
  let finishReason = state.finishReason;
  let error = state.error;
  if (finishReason === undefined) {
    finishReason = 'error';
    error ??= {
      code: 'invalid_response',
      message: 'The stream ended before the response finished',
      retryable: true,
    };
  }
  const response: Response = { message, finishReason, usage: state.usage };
  if (state.responseId !== undefined) response.id = state.responseId;
  if (state.model !== undefined) response.model = state.model;
  if (state.rawFinishReason !== undefined) response.rawFinishReason = state.rawFinishReason;
  if (error !== undefined) response.error = error;
  if (state.warnings !== undefined) response.warnings = state.warnings;
  return response;
}

/**
 * Collects any event sequence, synchronous or not, into a Response.
 *
 * @example
 * const response = await collectResponse(decodeStream('anthropic_messages', res.body!));
 * console.log(messageText(response.message), response.usage);
 */
export async function collectResponse(events: Iterable<Event> | AsyncIterable<Event>): Promise<Response> {
  let state = createFoldState();
  for await (const event of events) state = reduceEvents(state, event);
  return toResponse(state);
}
