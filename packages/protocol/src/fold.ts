/**
 * The one fold. The engine, the server and the browser all turn events into
 * messages with `reduceEvents`; nobody writes a second one.
 *
 * The state is immutable from the outside: each event returns a new state that
 * shares every message it did not touch, so a UI can re-render only what changed.
 * Tool-call arguments are accumulated as a string (V8 concatenation is amortised
 * O(1)) and parsed once at `tool-call-end`, never per fragment.
 */
import type { ErrorPayload } from './error.ts';
import type { Event } from './events.ts';
import type { FinishReason, HaltReason } from './finish.ts';
import type { Message, Part } from './message.ts';
import type { RunPause } from './pending.ts';
import type { Response } from './response.ts';
import { addUsage, mergeUsage, type Usage } from './usage.ts';

interface BlockRef {
  message: number;
  part: number;
  /** Tool-call arguments received so far. */
  inputText?: string;
  open: boolean;
}

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
  return { messages, current: -1, blocks: {}, usage: {}, totalUsage: {}, count: 0 };
}

function replacePart(state: FoldState, ref: BlockRef, update: (part: Part) => Part): Message[] {
  const messages = state.messages.slice();
  const message = messages[ref.message]!;
  const parts = message.parts.slice();
  parts[ref.part] = update(parts[ref.part]!);
  messages[ref.message] = { ...message, parts };
  return messages;
}

/** Ensures there is a current assistant message (a stream may start a block without `message-start`). */
function ensureCurrent(state: FoldState): FoldState {
  if (state.current >= 0) return state;
  const message: Message = { id: `msg-${state.messages.length}`, role: 'assistant', parts: [] };
  return { ...state, messages: [...state.messages, message], current: state.messages.length, blocks: {} };
}

function appendPart(state: FoldState, part: Part, blockId?: string, inputText?: string): FoldState {
  state = ensureCurrent(state);
  const messages = state.messages.slice();
  const message = messages[state.current]!;
  messages[state.current] = { ...message, parts: [...message.parts, part] };
  if (blockId === undefined) return { ...state, messages };
  const ref: BlockRef = { message: state.current, part: message.parts.length, open: true };
  if (inputText !== undefined) ref.inputText = inputText;
  return { ...state, messages, blocks: { ...state.blocks, [blockId]: ref } };
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
export function reduceEvents(state: FoldState, event: Event): FoldState {
  state = { ...state, count: state.count + 1 };
  switch (event.type) {
    case 'message-start': {
      const message: Message = {
        id: event.messageId ?? `msg-${state.messages.length}`,
        role: 'assistant',
        parts: [],
      };
      if (event.provenance) message.provenance = event.provenance;
      const next: FoldState = {
        ...state,
        messages: [...state.messages, message],
        current: state.messages.length,
        blocks: {},
        usage: {},
      };
      delete next.finishReason;
      delete next.rawFinishReason;
      delete next.warnings;
      if (event.responseId !== undefined) next.responseId = event.responseId;
      if (event.model !== undefined) next.model = event.model;
      return next;
    }
    case 'text-start':
      return appendPart(state, withState({ type: 'text', text: '' }, event.providerState), event.id);
    case 'reasoning-start':
      return appendPart(state, withState({ type: 'reasoning', text: '' }, event.providerState), event.id);
    case 'text-delta':
    case 'reasoning-delta': {
      let ref = state.blocks[event.id];
      if (!ref) {
        // A delta without its start: open the block rather than drop text.
        state = appendPart(state, { type: event.type === 'text-delta' ? 'text' : 'reasoning', text: '' }, event.id);
        ref = state.blocks[event.id]!;
      }
      return {
        ...state,
        messages: replacePart(state, ref, (part) =>
          part.type === 'text' || part.type === 'reasoning' ? { ...part, text: part.text + event.delta } : part,
        ),
      };
    }
    case 'text-end':
    case 'reasoning-end': {
      const ref = state.blocks[event.id];
      if (!ref) return state;
      const messages = replacePart(state, ref, (part) => {
        let next = withState(part, event.providerState);
        if (event.type === 'reasoning-end' && next.type === 'reasoning') {
          if (event.signature !== undefined) next = { ...next, signature: event.signature };
          if (event.redacted) next = { ...next, redacted: true };
        }
        return next;
      });
      return { ...state, messages, blocks: { ...state.blocks, [event.id]: { ...ref, open: false } } };
    }
    case 'tool-call-start': {
      const part: Part = withState({ type: 'tool-call', id: event.id, name: event.name, input: undefined }, event.providerState);
      if (event.providerExecuted) (part as { providerExecuted?: boolean }).providerExecuted = true;
      return appendPart(state, part, event.id, '');
    }
    case 'tool-call-delta': {
      const ref = state.blocks[event.id];
      if (!ref) return state;
      return { ...state, blocks: { ...state.blocks, [event.id]: { ...ref, inputText: (ref.inputText ?? '') + event.delta } } };
    }
    case 'tool-call-end': {
      let ref = state.blocks[event.id];
      if (!ref) {
        // An end without a start (a provider that sends whole calls): the call is still real.
        state = appendPart(state, { type: 'tool-call', id: event.id, name: '', input: undefined }, event.id, '');
        ref = state.blocks[event.id]!;
      }
      const messages = replacePart(state, ref, (part) => {
        if (part.type !== 'tool-call') return part;
        const next = withState({ ...part, input: event.input }, event.providerState);
        if (event.signature !== undefined) next.signature = event.signature;
        return next;
      });
      return { ...state, messages, blocks: { ...state.blocks, [event.id]: { ...ref, open: false } } };
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
        return appendPart(state, part);
      }
      // Local results go in a tool message right after the assistant message that asked.
      const last = state.messages[state.messages.length - 1];
      const messages = state.messages.slice();
      if (last && last.role === 'tool') {
        messages[messages.length - 1] = { ...last, parts: [...last.parts, part] };
      } else {
        messages.push({ id: event.messageId ?? `msg-${messages.length}`, role: 'tool', parts: [part] });
      }
      return { ...state, messages };
    }
    case 'source': {
      const part: Part = withState({ type: 'source', url: event.url }, event.providerState);
      if (event.title !== undefined) part.title = event.title;
      return appendPart(state, part);
    }
    case 'file': {
      const base = event.url !== undefined ? { url: event.url } : { data: event.data ?? '' };
      const part = withState({ type: 'file', mediaType: event.mediaType, ...base } as Part, event.providerState);
      if (event.filename !== undefined) (part as { filename?: string }).filename = event.filename;
      return appendPart(state, part);
    }
    case 'usage':
      return { ...state, usage: mergeUsage(state.usage, event.usage) };
    case 'finish': {
      const usage = mergeUsage(state.usage, event.usage);
      const next: FoldState = {
        ...closeOpenBlocks(state),
        usage,
        totalUsage: addUsage(state.totalUsage, usage),
        finishReason: event.finishReason,
      };
      if (event.rawFinishReason !== undefined) next.rawFinishReason = event.rawFinishReason;
      return next;
    }
    case 'error': {
      const error: ErrorPayload = { code: event.code, message: event.message, retryable: event.retryable };
      if (event.status !== undefined) error.status = event.status;
      if (event.retryAfterMs !== undefined) error.retryAfterMs = event.retryAfterMs;
      return { ...state, error };
    }
    case 'warning':
      return { ...state, warnings: [...(state.warnings ?? []), event.message] };
    case 'compaction':
      return appendPart(state, withState({ type: 'compaction', text: event.text }, event.providerState));
    case 'object-delta':
      return { ...state, object: event.object };
    case 'summary': {
      const message: Message = { id: event.messageId, role: 'user', parts: [{ type: 'summary', text: event.text, through: event.through }] };
      return { ...state, messages: [...state.messages, message] };
    }
    case 'chat-finish':
      return { ...closeOpenBlocks(state), haltReason: event.haltReason, totalUsage: event.usage };
    case 'run-paused':
      return pauseOn(state, event);
    case 'step-start':
    case 'step-finish':
    case 'approval-requested':
    case 'ask-user':
      return state;
    default:
      return assertNever(event);
  }
}

function pauseOn(state: FoldState, event: Extract<Event, { type: 'run-paused' }>): FoldState {
  let index = -1;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    if (event.messageId !== undefined ? m.id === event.messageId : m.role === 'assistant') {
      index = i;
      break;
    }
  }
  if (index < 0) return state;
  const pause: RunPause = { waitingFor: event.waitingFor };
  if (event.signature !== undefined) pause.signature = event.signature;
  const messages = state.messages.slice();
  messages[index] = { ...messages[index]!, pause };
  return { ...state, messages };
}

function assertNever(value: never): never {
  throw new Error(`Unknown event: ${JSON.stringify(value)}`);
}

/** Closes blocks left open (a cut stream): keeps their text, parses what arguments arrived. */
function closeOpenBlocks(state: FoldState): FoldState {
  let messages: Message[] | undefined;
  let blocks: Record<string, BlockRef> | undefined;
  for (const [id, ref] of Object.entries(state.blocks)) {
    if (!ref.open) continue;
    blocks ??= { ...state.blocks };
    blocks[id] = { ...ref, open: false };
    if (ref.inputText === undefined) continue;
    const input = parseInput(ref.inputText);
    messages = replacePart({ ...state, messages: messages ?? state.messages }, ref, (part) =>
      part.type === 'tool-call' && part.input === undefined ? { ...part, input } : part,
    );
  }
  if (!blocks) return state;
  return { ...state, blocks, messages: messages ?? state.messages };
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
 * The Response a folded stream amounts to. A stream that ended without `finish`
 * is an `invalid_response` error, with everything received kept.
 *
 * @example
 * const { message, usage, finishReason } = toResponse(state);
 */
export function toResponse(state: FoldState): Response {
  state = closeOpenBlocks(state);
  const message: Message = state.messages[state.current] ?? { id: `msg-${state.messages.length}`, role: 'assistant', parts: [] };
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
