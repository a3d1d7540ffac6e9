/**
 * Protocol events -> AG-UI 1.0 events (`@ag-ui/core`). Pure: the same events give the same
 * AG-UI events. The table of what maps exactly, what is approximated and what is dropped is in
 * docs/frontends.md.
 *
 * AG-UI message ids are the protocol's: an assistant message's text and tool calls use its id,
 * its reasoning `<id>~r<n>`, a tool result `<tool message id>` (`~<n>` for the second and later
 * result of one tool message), so `agUiInputToThread` finds each one's protocol message again.
 * The signed protocol messages travel in AG-UI state under `parlance`.
 */
import { type AGUIEvent, EventType, type Interrupt, type RunFinishedOutcome, type TokenUsage } from '@ag-ui/core';
import { createFoldState, type Event, type FoldState, type Message, type PendingInput, reduceEvents, runMessages, type Usage } from '@parlance/protocol';

/**
 * What a Parlance run keeps in AG-UI state (under `parlance`): the thread's signed protocol messages.
 *
 * @example
 * const signed = (state as ParlanceAgUiState).parlance.messages;
 */
export interface ParlanceAgUiState {
  parlance: { threadId: string; messages: Message[] };
}

/**
 * 
 *
 * @example
 * createAgUiEventMapper({ threadId: input.threadId, runId: input.runId, messages: thread.messages });
 */
export interface AgUiEventMapperOptions {
  threadId: string;
  /** The AG-UI run id (`RunAgentInput.runId`). */
  runId: string;
  /** The thread's messages before this run (what the state will hold, plus what the run adds). */
  messages: Message[];
  /** The state the client sent: a plain object gets a `STATE_DELTA` on `/parlance`, anything else a `STATE_SNAPSHOT`. */
  state?: unknown;
}

/**
 * Turns a run's protocol events into AG-UI events, one at a time.
 *
 * @example
 * const mapper = createAgUiEventMapper({ threadId, runId, messages: [] });
 * for await (const event of run) for (const out of mapper.push(event)) send(out);
 */
export interface AgUiEventMapper {
  push(event: Event): AGUIEvent[];
}

/**
 * Separates a derived AG-UI message id from its protocol message id.
 *
 * @example
 * const [messageId] = agUiMessageId.split(AG_UI_ID_SEPARATOR);
 */
export const AG_UI_ID_SEPARATOR = '~';

function usageOf(usage: Usage): TokenUsage[] {
  const out: TokenUsage = {};
  if (usage.inputTokens !== undefined) out.inputTokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) out.outputTokens = usage.outputTokens;
  if (usage.inputTokens !== undefined && usage.outputTokens !== undefined) out.totalTokens = usage.inputTokens + usage.outputTokens;
  if (usage.reasoningTokens !== undefined) out.reasoningTokens = usage.reasoningTokens;
  if (usage.cacheReadTokens !== undefined) out.cachedInputTokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) out.cacheWriteInputTokens = usage.cacheWriteTokens;
  return Object.keys(out).length ? [out] : [];
}

function interruptOf(input: PendingInput): Interrupt {
  if (input.kind === 'ask-user') return { id: input.toolCallId, reason: 'input', toolCallId: input.toolCallId, ...(input.question !== undefined ? { message: input.question } : {}) };
  return { id: input.toolCallId, reason: 'tool_approval', toolCallId: input.toolCallId, message: `Approve the call to ${input.name}?`, metadata: { parlance: { name: input.name, input: input.input } } };
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A mapper from one run's protocol events to AG-UI events, from RUN_STARTED to RUN_FINISHED or RUN_ERROR.
 *
 * @example
 * ```ts
 * const mapper = createAgUiEventMapper({ threadId: input.threadId, runId: input.runId, messages: thread.messages });
 * for await (const { event } of store.follow(runId, -1)) for (const agui of mapper.push(event)) write(encoder.encode(agui));
 * ```
 */
export function createAgUiEventMapper(options: AgUiEventMapperOptions): AgUiEventMapper {
  // From where the engine starts (`runMessages`), so the messages handed back are the thread it ends with.
  let fold: FoldState = createFoldState(runMessages([...options.messages]));
  let started = false;
  let ended = false;
  let message = 'm';
  let reasoningBlocks = 0;
  let waitingFor: PendingInput[] = [];
  const ids = new Map<string, string>();
  const open = new Map<string, 'text' | 'reasoning'>();
  const argsSeen = new Set<string>();
  const { threadId, runId } = options;

  function close(blockId: string, out: AGUIEvent[]): void {
    const kind = open.get(blockId);
    const messageId = ids.get(blockId)!;
    open.delete(blockId);
    if (kind === 'text') out.push({ type: EventType.TEXT_MESSAGE_END, messageId });
    if (kind === 'reasoning') out.push({ type: EventType.REASONING_MESSAGE_END, messageId }, { type: EventType.REASONING_END, messageId });
  }

  function map(event: Event, out: AGUIEvent[]): void {
    switch (event.type) {
      case 'message-start':
        message = event.messageId ?? fold.messages.at(-1)?.id ?? message;
        reasoningBlocks = 0;
        return;
      case 'step-start':
        out.push({ type: EventType.STEP_STARTED, stepName: `step-${event.step}` });
        return;
      case 'step-finish':
        for (const key of [...open.keys()]) close(key, out);
        out.push({ type: EventType.STEP_FINISHED, stepName: `step-${event.step}` });
        return;
      case 'text-start': {
        // An assistant message's first text is the message itself; a second text block is a message of its own.
        const used = [...ids.values()].includes(message);
        const messageId = used ? `${message}${AG_UI_ID_SEPARATOR}t${event.id}` : message;
        ids.set(`${message}/${event.id}`, messageId);
        open.set(`${message}/${event.id}`, 'text');
        out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
        return;
      }
      case 'text-delta':
        if (event.delta && ids.has(`${message}/${event.id}`)) out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: ids.get(`${message}/${event.id}`)!, delta: event.delta });
        return;
      case 'text-end':
        if (open.has(`${message}/${event.id}`)) close(`${message}/${event.id}`, out);
        return;
      case 'reasoning-start': {
        const messageId = `${message}${AG_UI_ID_SEPARATOR}r${reasoningBlocks++}`;
        ids.set(`${message}/${event.id}`, messageId);
        open.set(`${message}/${event.id}`, 'reasoning');
        out.push({ type: EventType.REASONING_START, messageId }, { type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning' });
        return;
      }
      case 'reasoning-delta':
        if (event.delta && ids.has(`${message}/${event.id}`)) out.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: ids.get(`${message}/${event.id}`)!, delta: event.delta });
        return;
      case 'reasoning-end': {
        const key = `${message}/${event.id}`;
        if (!open.has(key)) return;
        const messageId = ids.get(key)!;
        open.delete(key);
        out.push({ type: EventType.REASONING_MESSAGE_END, messageId });
        if (event.signature) out.push({ type: EventType.REASONING_ENCRYPTED_VALUE, subtype: 'message', entityId: messageId, encryptedValue: event.signature });
        out.push({ type: EventType.REASONING_END, messageId });
        return;
      }
      case 'tool-call-start':
        out.push({ type: EventType.TOOL_CALL_START, toolCallId: event.id, toolCallName: event.name, parentMessageId: message });
        return;
      case 'tool-call-delta':
        if (!event.delta) return;
        argsSeen.add(event.id);
        out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: event.id, delta: event.delta });
        return;
      case 'tool-call-end':
        if (!argsSeen.has(event.id)) out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: event.id, delta: JSON.stringify(event.input ?? {}) });
        out.push({ type: EventType.TOOL_CALL_END, toolCallId: event.id });
        return;
      case 'tool-result': {
        const holder = fold.messages.at(-1)!;
        const index = holder.parts.filter((p) => p.type === 'tool-result').length - 1;
        const messageId = index > 0 ? `${holder.id}${AG_UI_ID_SEPARATOR}${index}` : holder.id;
        out.push({ type: EventType.TOOL_CALL_RESULT, messageId, toolCallId: event.toolCallId, content: text(event.output), role: 'tool' });
        return;
      }
      case 'run-paused':
        waitingFor = event.waitingFor;
        return;
      case 'error':
        for (const key of [...open.keys()]) close(key, out);
        out.push({ type: EventType.RUN_ERROR, message: event.message, code: event.code });
        ended = true;
        return;
      case 'chat-finish': {
        for (const key of [...open.keys()]) close(key, out);
        if (event.haltReason === 'error') {
          out.push({ type: EventType.RUN_ERROR, message: event.error?.message ?? 'The run failed', ...(event.error ? { code: event.error.code } : {}), usage: usageOf(event.usage) });
          ended = true;
          return;
        }
        const parlance = { threadId, messages: fold.messages };
        const state = options.state;
        if (state !== null && typeof state === 'object' && !Array.isArray(state)) out.push({ type: EventType.STATE_DELTA, delta: [{ op: 'add', path: '/parlance', value: parlance }] });
        else out.push({ type: EventType.STATE_SNAPSHOT, snapshot: { parlance } satisfies ParlanceAgUiState });
        const interrupts = waitingFor.filter((p) => p.kind !== 'client-tool').map(interruptOf);
        const pending = waitingFor.filter((p) => p.kind === 'client-tool').map((p) => p.toolCallId);
        const outcome: RunFinishedOutcome =
          event.haltReason === 'cancelled' ? { type: 'cancelled' } : interrupts.length ? { type: 'interrupt', interrupts } : { type: 'success', ...(pending.length ? { pendingToolCallIds: pending } : {}) };
        out.push({ type: EventType.RUN_FINISHED, threadId, runId, outcome, usage: usageOf(event.usage) });
        ended = true;
        return;
      }
      // usage, finish, warning, source, file, compaction, summary, object-delta, approval-requested, ask-user:
      // no AG-UI event of their own (see docs/frontends.md).
      default:
        return;
    }
  }

  return {
    push(event) {
      const out: AGUIEvent[] = [];
      if (ended) return out;
      if (!started) {
        started = true;
        out.push({ type: EventType.RUN_STARTED, threadId, runId });
      }
      if (event.type !== 'chat-finish') fold = reduceEvents(fold, event);
      map(event, out);
      return out;
    },
  };
}
