/**
 * Protocol events -> the AI SDK's UI message stream chunks (`ai` 6, `x-vercel-ai-ui-message-stream: v1`).
 * Pure: the same events give the same chunks, so a resumed stream (replayed from the first event
 * of the UI message's first run) rebuilds the same UI message. The table of what maps exactly,
 * what is approximated and what is dropped is in docs/frontends.md.
 *
 * One UI message stands for one assistant turn, which in the protocol is several messages
 * (assistant, tool results, assistant ...) and, when the turn paused for an approval or a client
 * tool, several runs. The protocol messages themselves, with every signature and provider state,
 * travel in the UI message's metadata in pieces (see ui-metadata.ts), so the thread the browser
 * sends back is the thread the server signed.
 */
import { createFoldState, type Event, type FoldState, type HaltReason, type Message, type ProviderState, reduceEvents, runMessages } from '@parlance/protocol';
import type { FinishReason, UIMessageChunk } from 'ai';
import { createMetadataDelta, type ParlanceUiMetadata } from './ui-metadata.ts';

/**
 * The chunk type this module writes, with Parlance's message metadata.
 *
 * @example
 * const chunks: ParlanceUiChunk[] = mapper.push(event);
 */
export type ParlanceUiChunk = UIMessageChunk<ParlanceUiMetadata>;

/**
 * Options of `createUiChunkMapper`: the UI message the chunks build and what it already holds.
 *
 * @example
 * createUiChunkMapper({ messageId: lastUiMessage.id, threadId, prior: pausedMessages });
 */
export interface UiChunkMapperOptions {
  /** The UI message the chunks build (a new id per run, or the id of the message a resumed pause continues). */
  messageId: string;
  threadId: string;
  /** Protocol messages that UI message already stands for (a run continuing a paused message). */
  prior?: Message[];
  /** Calls the user denied in this request: their error results become `tool-output-denied`. */
  denied?: readonly string[];
}

/**
 * Turns a run's events into UI message chunks, one event at a time.
 *
 * @example
 * const mapper = createUiChunkMapper({ messageId: 'msg_1', threadId: 't1' });
 * for await (const event of run) for (const chunk of mapper.push(event)) writer.write(chunk);
 */
export interface UiChunkMapper {
  push(event: Event): ParlanceUiChunk[];
  /**
   * The next run of the same UI message begins (a replay of a turn that paused and went on): its
   * events continue the message, with no second `start`. `denied` are the calls denied in the
   * request that started it.
   */
  nextRun(denied?: readonly string[]): void;
}

const FINISH: Partial<Record<HaltReason, FinishReason>> = {
  completed: 'stop',
  'max-steps': 'other',
  'halt-when': 'other',
  'client-tool-calls': 'tool-calls',
  approval: 'tool-calls',
  'ask-user': 'tool-calls',
  'tool-error': 'error',
  length: 'length',
  'content-filter': 'content-filter',
  error: 'error',
};

/** Provider state and signatures as AI SDK provider metadata (under `parlance`). */
function metadataOf(fields: { providerState?: ProviderState | undefined; signature?: string | undefined; redacted?: boolean | undefined }) {
  const parlance: Record<string, unknown> = {};
  if (fields.providerState !== undefined) parlance.providerState = fields.providerState;
  if (fields.signature !== undefined) parlance.signature = fields.signature;
  if (fields.redacted) parlance.redacted = true;
  return Object.keys(parlance).length ? { providerMetadata: { parlance: parlance as never } } : {};
}

function errorText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/**
 * A mapper from one run's protocol events to UI message stream chunks.
 *
 * @example
 * ```ts
 * const mapper = createUiChunkMapper({ messageId: 'msg_1', threadId: chatId });
 * for await (const { event } of store.follow(runId, -1)) for (const chunk of mapper.push(event)) write(chunk);
 * ```
 */
export function createUiChunkMapper(options: UiChunkMapperOptions): UiChunkMapper {
  // From where the engine starts (`runMessages`), so the messages handed back are the thread it ends with.
  let fold: FoldState = createFoldState(runMessages([...(options.prior ?? [])]));
  let started = false;
  let stepOpen = false;
  let sawError = false;
  let message = 'm';
  const names = new Map<string, string>();
  const open = new Map<string, 'text' | 'reasoning'>();
  const denied = new Set(options.denied ?? []);
  // The browser already holds the prior messages (a continued UI message): only what is new is sent.
  const delta = createMetadataDelta(fold.messages);
  const blockId = (id: string) => `${message}:${id}`;
  const closed = (at: number, part: number) => !Object.values(fold.blocks).some((b) => b.open && b.message === at && b.part === part);
  /** The metadata chunk for what changed since the last one (none when nothing did). */
  const pieces = (out: ParlanceUiChunk[], extra: Partial<ParlanceUiMetadata['parlance']> = {}): ParlanceUiMetadata | undefined => {
    const messages = delta.next(fold.messages, closed);
    if (!messages && !Object.keys(extra).length) return undefined;
    const metadata: ParlanceUiMetadata = { parlance: { threadId: options.threadId, messages: messages ?? {}, ...extra } };
    out.push({ type: 'message-metadata', messageMetadata: metadata });
    return metadata;
  };

  function closeOpen(out: ParlanceUiChunk[]): void {
    for (const [id, kind] of open) out.push({ type: kind === 'text' ? 'text-end' : 'reasoning-end', id });
    open.clear();
  }

  function map(event: Event, out: ParlanceUiChunk[]): void {
    switch (event.type) {
      case 'message-start':
        message = event.messageId ?? `m${fold.messages.length}`;
        return;
      case 'step-start':
        if (!stepOpen) out.push({ type: 'start-step' });
        stepOpen = true;
        return;
      case 'step-finish':
        // The AI SDK forgets open blocks at finish-step: a step cut short (a cancel) closes them first.
        closeOpen(out);
        if (stepOpen) out.push({ type: 'finish-step' });
        stepOpen = false;
        pieces(out);
        return;
      case 'text-start':
        open.set(blockId(event.id), 'text');
        out.push({ type: 'text-start', id: blockId(event.id), ...metadataOf(event) });
        return;
      case 'text-delta':
        out.push({ type: 'text-delta', id: blockId(event.id), delta: event.delta });
        return;
      case 'text-end':
        open.delete(blockId(event.id));
        out.push({ type: 'text-end', id: blockId(event.id), ...metadataOf(event) });
        // A message sent before this run finishes then still carries the finished text.
        pieces(out);
        return;
      case 'reasoning-start':
        open.set(blockId(event.id), 'reasoning');
        out.push({ type: 'reasoning-start', id: blockId(event.id), ...metadataOf(event) });
        return;
      case 'reasoning-delta':
        out.push({ type: 'reasoning-delta', id: blockId(event.id), delta: event.delta });
        return;
      case 'reasoning-end':
        open.delete(blockId(event.id));
        out.push({ type: 'reasoning-end', id: blockId(event.id), ...metadataOf(event) });
        return;
      case 'tool-call-start':
        names.set(event.id, event.name);
        out.push({ type: 'tool-input-start', toolCallId: event.id, toolName: event.name, ...(event.providerExecuted ? { providerExecuted: true } : {}), ...metadataOf(event) });
        return;
      case 'tool-call-delta':
        out.push({ type: 'tool-input-delta', toolCallId: event.id, inputTextDelta: event.delta });
        return;
      case 'tool-call-end': {
        const toolName = names.get(event.id) ?? 'unknown';
        const providerExecuted = fold.messages.some((m) => m.parts.some((p) => p.type === 'tool-call' && p.id === event.id && p.providerExecuted));
        out.push({ type: 'tool-input-available', toolCallId: event.id, toolName, input: event.input, ...(providerExecuted ? { providerExecuted: true } : {}), ...metadataOf(event) });
        pieces(out);
        return;
      }
      case 'approval-requested':
        // The call id is the approval id: the answer names the call it approves.
        out.push({ type: 'tool-approval-request', approvalId: event.toolCallId, toolCallId: event.toolCallId });
        return;
      case 'tool-result': {
        const extra = { ...(event.providerExecuted ? { providerExecuted: true } : {}), ...metadataOf(event) };
        if (event.isError && denied.has(event.toolCallId)) out.push({ type: 'tool-output-denied', toolCallId: event.toolCallId });
        else if (event.isError) out.push({ type: 'tool-output-error', toolCallId: event.toolCallId, errorText: errorText(event.output), ...extra });
        else out.push({ type: 'tool-output-available', toolCallId: event.toolCallId, output: event.output, ...extra });
        pieces(out);
        return;
      }
      case 'source':
        out.push({ type: 'source-url', sourceId: `${message}:source:${fold.count}`, url: event.url, ...(event.title !== undefined ? { title: event.title } : {}), ...metadataOf(event) });
        return;
      case 'file': {
        const url = event.url ?? `data:${event.mediaType};base64,${event.data ?? ''}`;
        out.push({ type: 'file', url, mediaType: event.mediaType, ...metadataOf(event) });
        return;
      }
      case 'run-paused':
      case 'message-metadata':
        pieces(out);
        return;
      case 'error':
        sawError = true;
        out.push({ type: 'error', errorText: event.message });
        return;
      case 'chat-finish': {
        closeOpen(out);
        if (stepOpen) out.push({ type: 'finish-step' });
        stepOpen = false;
        if (event.error && !sawError) out.push({ type: 'error', errorText: event.error.message });
        if (event.haltReason === 'cancelled') out.push({ type: 'abort', reason: 'cancelled' });
        const finishReason = FINISH[event.haltReason];
        const messages = delta.next(fold.messages, closed) ?? {};
        out.push({
          type: 'finish',
          ...(finishReason ? { finishReason } : {}),
          messageMetadata: { parlance: { threadId: options.threadId, messages, haltReason: event.haltReason, usage: event.usage } },
        });
        return;
      }
      // usage, finish, warning, compaction, summary, object-delta, ask-user: no UI chunk (see docs/frontends.md).
      default:
        return;
    }
  }

  return {
    push(event) {
      const out: ParlanceUiChunk[] = [];
      if (!started) {
        started = true;
        out.push({ type: 'start', messageId: options.messageId });
      }
      // The fold keeps the protocol messages (with signatures) the metadata carries: the thread the
      // engine ends with, as the server does not send it.
      fold = reduceEvents(fold, event);
      map(event, out);
      return out;
    },
    nextRun(more = []) {
      for (const id of more) denied.add(id);
      fold = createFoldState(runMessages(fold.messages));
      stepOpen = false;
      sawError = false;
      open.clear();
    },
  };
}
