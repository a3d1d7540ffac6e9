/**
 * The wire protocol: what a dialect decodes a provider's stream into, what the engine
 * emits, what the server sends and what the browser folds. Blocks (text, reasoning,
 * tool calls) are addressed by id, so they may interleave.
 */
import type { ErrorCode } from './error.ts';
import type { FinishReason, HaltReason } from './finish.ts';
import type { Message, Provenance, ProviderState } from './message.ts';
import type { PendingInput } from './pause.ts';
import type { Thread } from './thread-shape.ts';
import type { Usage } from './usage.ts';

/**
 * The protocol's version: what this package's types and events describe.
 *
 * @example
 * console.log(`Parlance protocol v${PROTOCOL_VERSION}`);
 */
export const PROTOCOL_VERSION = 1;

/**
 * A new assistant message begins (one per model response).
 *
 * @example
 * if (event.type === 'message-start') startBubble(event.responseId);
 */
export interface MessageStartEvent {
  type: 'message-start';
  /** The message id (assigned by the engine or server; dialects may leave it out). */
  messageId?: string;
  /** The provider's response id. */
  responseId?: string;
  model?: string;
  provenance?: Provenance;
  /**
   * The response's usage as reported with its start (the input count, a provider's first report):
   * folded as a `usage` event right after the start would be. Wire 2 (lean-wire.ts) puts that
   * report here instead of sending a `usage` event.
   */
  usage?: Usage;
}

/**
 * A text block opens (deltas follow with the same `id`).
 *
 * @example
 * if (event.type === 'text-start') blocks.set(event.id, '');
 */
export interface TextStartEvent {
  type: 'text-start';
  id: string;
  providerState?: ProviderState;
}
/**
 * A piece of text for the open block `id`.
 *
 * @example
 * if (event.type === 'text-delta') process.stdout.write(event.delta);
 */
export interface TextDeltaEvent {
  type: 'text-delta';
  id: string;
  delta: string;
}
/**
 * The text block `id` is complete.
 *
 * @example
 * if (event.type === 'text-end') finishBlock(event.id);
 */
export interface TextEndEvent {
  type: 'text-end';
  id: string;
  providerState?: ProviderState;
}

/**
 * A reasoning block opens.
 *
 * @example
 * if (event.type === 'reasoning-start') showThinking();
 */
export interface ReasoningStartEvent {
  type: 'reasoning-start';
  id: string;
  providerState?: ProviderState;
}
/**
 * A piece of the model's reasoning.
 *
 * @example
 * if (event.type === 'reasoning-delta') thinking += event.delta;
 */
export interface ReasoningDeltaEvent {
  type: 'reasoning-delta';
  id: string;
  delta: string;
}
/**
 * The reasoning block is complete (with its signature, when the provider signs it).
 *
 * @example
 * if (event.type === 'reasoning-end') hideThinking();
 */
export interface ReasoningEndEvent {
  type: 'reasoning-end';
  id: string;
  signature?: string;
  redacted?: boolean;
  providerState?: ProviderState;
}

/**
 * The model starts a tool call (its id and the tool's name).
 *
 * @example
 * if (event.type === 'tool-call-start') showCall(event.name);
 */
export interface ToolCallStartEvent {
  type: 'tool-call-start';
  id: string;
  name: string;
  providerExecuted?: boolean;
  providerState?: ProviderState;
}
/**
 * A fragment of the call's JSON arguments, as the provider streamed it.
 *
 * @example
 * if (event.type === 'tool-call-delta') partialInput += event.delta;
 */
export interface ToolCallDeltaEvent {
  type: 'tool-call-delta';
  id: string;
  delta: string;
}
/**
 * The call is complete; `input` is the parsed arguments.
 *
 * @example
 * if (event.type === 'tool-call-end') console.log(event.id, event.input);
 */
export interface ToolCallEndEvent {
  type: 'tool-call-end';
  id: string;
  input: unknown;
  providerState?: ProviderState;
  /** The server's signature over the finished call (added by the server as the event passes; see `ToolCallPart.signature`). */
  signature?: string;
}

/**
 * A tool's result: from the engine (local tools) or from the provider (server tools).
 *
 * @example
 * if (event.type === 'tool-result' && event.isError) console.warn(event.name, event.output);
 */
export interface ToolResultEvent {
  type: 'tool-result';
  toolCallId: string;
  name: string;
  output: unknown;
  isError?: boolean;
  providerExecuted?: boolean;
  providerState?: ProviderState;
  /** Id for the tool message this result opens (engine-assigned; the fold derives one if absent). */
  messageId?: string;
  /** The server's signature over the result (see `ToolResultPart.signature`). */
  signature?: string;
}

/**
 * A source the model cites.
 *
 * @example
 * if (event.type === 'source') citations.push(event.url);
 */
export interface SourceEvent {
  type: 'source';
  url: string;
  title?: string;
  providerState?: ProviderState;
}

/**
 * A file the model produced (an image, audio).
 *
 * @example
 * if (event.type === 'file') showImage(event.mediaType, event.data);
 */
export interface FileEvent {
  type: 'file';
  mediaType: string;
  data?: string;
  url?: string;
  filename?: string;
  providerState?: ProviderState;
}

/**
 * Usage reported so far in this response (later reports overlay earlier ones field by field).
 *
 * @example
 * if (event.type === 'usage') meter.update(event.usage);
 */
export interface UsageEvent {
  type: 'usage';
  usage: Usage;
}

/**
 * The model response ended: why, and its final usage. Exactly one per model stream.
 *
 * @example
 * if (event.type === 'finish' && event.finishReason === 'length') console.warn('cut short');
 */
export interface FinishEvent {
  type: 'finish';
  finishReason: FinishReason;
  rawFinishReason?: string;
  usage: Usage;
}

/**
 * An error as data: the stream reports it and ends, instead of throwing.
 *
 * @example
 * if (event.type === 'error') showError(event.code, event.message);
 */
export interface ErrorEvent {
  type: 'error';
  code: ErrorCode;
  message: string;
  retryable: boolean;
  status?: number;
  /** How long the provider asked to wait before trying again (its Retry-After), in ms. */
  retryAfterMs?: number;
}

/**
 * A setting of the request was not sent, or was changed, because the model or the API would
 * reject the request with it (e.g. `temperature` with reasoning on a gpt-5 model, Anthropic
 * thinking with a forced tool). Emitted after `message-start`; collected into
 * `Response.warnings`.
 *
 * @example
 * { type: 'warning', setting: 'topP', message: 'claude-sonnet-4-5 accepts temperature or top_p, not both: top_p was not sent' }
 */
export interface WarningEvent {
  type: 'warning';
  /** The request field concerned (`temperature`, `topP`, `thinking`, `toolChoice`, `output.strict`, ...). */
  setting?: string;
  message: string;
}

/**
 * The provider compacted the conversation: its summary of the turns before this response
 * (a `compaction` part of the current message).
 *
 * @example
 * { type: 'compaction', text: 'Earlier, the user asked about Paris…', providerState: { anthropic_messages: { type: 'compaction' } } }
 */
export interface CompactionEvent {
  type: 'compaction';
  text: string;
  providerState?: ProviderState;
}

// The engine's events.

/**
 * A step of a run begins (one model call and its tools).
 *
 * @example
 * if (event.type === 'step-start') console.log('step', event.step);
 */
export interface StepStartEvent {
  type: 'step-start';
  step: number;
}
/**
 * A step of a run ended.
 *
 * @example
 * if (event.type === 'step-finish') console.log('step done', event.step);
 */
export interface StepFinishEvent {
  type: 'step-finish';
  step: number;
  finishReason: FinishReason;
  usage: Usage;
}
/**
 * A step begins again: the server instance running it stopped mid-step (a crash found by its lease,
 * or a graceful hand-over) and another took the run over from its last checkpoint. The message the
 * step was streaming (`messageId`) is withdrawn: the fold removes it, so its text is never shown
 * twice; the step's events then follow anew from its `step-start`. What finished before (earlier
 * steps, the step's model response once it finished, each stored tool result) is kept.
 *
 * @example
 * if (event.type === 'step-restarted') console.log(`step ${event.step} starts again (${event.reason})`);
 */
export interface StepRestartedEvent {
  type: 'step-restarted';
  step: number;
  /** The withdrawn message of the interrupted step; absent when it had not started one. */
  messageId?: string;
  /** `takeover`: the runner's lease lapsed (a crash); `handover`: the runner stopped on purpose (a deploy). */
  reason: 'takeover' | 'handover';
}
/**
 * A tool call waits for the user's approval.
 *
 * @example
 * if (event.type === 'approval-requested') askToApprove(event.toolCallId);
 */
export interface ApprovalRequestedEvent {
  type: 'approval-requested';
  toolCallId: string;
  name: string;
  input: unknown;
}
/**
 * A tool asks the user a question; the answer becomes its result.
 *
 * @example
 * if (event.type === 'ask-user') prompt(event.question);
 */
export interface AskUserEvent {
  type: 'ask-user';
  toolCallId: string;
  question: string;
}
/**
 * The run pauses on an assistant message until these inputs arrive (emitted once, just
 * before a `chat-finish` with halt reason `approval`, `ask-user` or `client-tool-calls`).
 * The fold writes it to that message's `pause`, so the pause is part of the saved thread.
 *
 * @example
 * if (event.type === 'run-paused') showPending(event);
 */
export interface RunPausedEvent {
  type: 'run-paused';
  /** The paused assistant message (default: the last assistant message). */
  messageId?: string;
  waitingFor: PendingInput[];
  /** The server's signature over the pause (see `RunPause`). */
  signature?: string;
}
/**
 * A partial structured-output object, parsed tolerantly from the JSON received so far.
 *
 * @example
 * if (event.type === 'object-delta') render(event.object);
 */
export interface ObjectDeltaEvent {
  type: 'object-delta';
  object: unknown;
}
/**
 * The engine summarized older messages to fit the context window: a user-role message
 * holding one `summary` part is appended to the thread (see SummaryPart).
 *
 * @example
 * if (event.type === 'summary') note('older messages summarized');
 */
export interface SummaryEvent {
  type: 'summary';
  messageId: string;
  text: string;
  /** The id of the last message the summary replaces in requests. */
  through: string;
  /** What the summarizing model call used. */
  usage?: Usage;
}
/**
 * Metadata for a message, merged key by key into its `metadata` (a key set to `null` stays,
 * as `null`). What a server adds to a message beyond its parts (its usage, its cost, a trace
 * id) travels this way, so the thread the browser folds from the events is the whole thread.
 *
 * @example
 * yield { type: 'message-metadata', messageId, metadata: { usage } };
 */
export interface MessageMetadataEvent {
  type: 'message-metadata';
  /** The message (default: the assistant message being streamed, else the last one). */
  messageId?: string;
  metadata: Record<string, unknown>;
}
/**
 * A run ended. Exactly one per run, whatever the ending.
 *
 * The thread a run leaves is what its events fold to, from the thread it was given
 * (see `runMessages`): a Parlance server does not repeat it here. `thread` is set by the
 * engine for callers in the same process, and by a server only for a request that sent
 * bare `messages` (its caller holds no thread to fold onto). `metadata` is the thread's
 * metadata when the run changed it (a trace context, say).
 *
 * @example
 * if (event.type === 'chat-finish') done(event.haltReason);
 */
export interface ChatFinishEvent {
  type: 'chat-finish';
  haltReason: HaltReason;
  usage: Usage;
  thread?: Thread;
  metadata?: Record<string, unknown>;
  error?: { code: ErrorCode; message: string };
}

/**
 * Every event a Parlance stream carries: message, text, reasoning and tool-call blocks (start / delta / end), tool results, usage, pauses, errors, and one `finish` (model) or `chat-finish` (run).
 *
 * @example
 * for await (const event of stream) {
 *   if (event.type === 'text-delta') append(event.delta);
 *   else if (event.type === 'chat-finish') done(event.haltReason);
 * }
 */
export type Event =
  | MessageStartEvent
  | TextStartEvent
  | TextDeltaEvent
  | TextEndEvent
  | ReasoningStartEvent
  | ReasoningDeltaEvent
  | ReasoningEndEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | ToolResultEvent
  | SourceEvent
  | FileEvent
  | UsageEvent
  | FinishEvent
  | ErrorEvent
  | WarningEvent
  | CompactionEvent
  | StepStartEvent
  | StepFinishEvent
  | StepRestartedEvent
  | ApprovalRequestedEvent
  | AskUserEvent
  | RunPausedEvent
  | ObjectDeltaEvent
  | SummaryEvent
  | MessageMetadataEvent
  | ChatFinishEvent;

/**
 * The `type` of any event.
 *
 * @example
 * const seen = new Set<EventType>();
 */
export type EventType = Event['type'];
/**
 * The event with this `type`.
 *
 * @example
 * const onDelta = (event: EventOf<'text-delta'>) => append(event.delta);
 */
export type EventOf<T extends EventType> = Extract<Event, { type: T }>;

/**
 * The events a model (a dialect decoder) produces; the rest are the engine's.
 *
 * @example
 * const fromModel = events.filter((e) => (MODEL_EVENT_TYPES as readonly string[]).includes(e.type));
 */
export const MODEL_EVENT_TYPES = [
  'message-start',
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-call-start',
  'tool-call-delta',
  'tool-call-end',
  'tool-result',
  'source',
  'file',
  'usage',
  'finish',
  'error',
  'warning',
  'compaction',
] as const satisfies readonly EventType[];

/**
 * Every event `type` this protocol version knows (clients skip others).
 *
 * @example
 * if (!(EVENT_TYPES as readonly string[]).includes(frame.type)) return; // from a newer server
 */
export const EVENT_TYPES = [
  ...MODEL_EVENT_TYPES,
  'step-start',
  'step-finish',
  'step-restarted',
  'approval-requested',
  'ask-user',
  'run-paused',
  'object-delta',
  'summary',
  'message-metadata',
  'chat-finish',
] as const satisfies readonly EventType[];



/**
 * Builds the error event for a ParlanceError-like value.
 *
 * @example
 * yield errorEvent({ code: 'timeout', message: 'The provider did not answer in 30 s', retryable: true });
 */
export function errorEvent(error: { code: ErrorCode; message: string; retryable: boolean; status?: number; retryAfterMs?: number }): ErrorEvent {
  const event: ErrorEvent = { type: 'error', code: error.code, message: error.message, retryable: error.retryable };
  if (error.status !== undefined) event.status = error.status;
  if (error.retryAfterMs !== undefined) event.retryAfterMs = error.retryAfterMs;
  return event;
}

/** Re-export so users can type message-level callbacks without a second import. */
export type { Message };
