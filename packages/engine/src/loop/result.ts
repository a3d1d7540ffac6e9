/**
 * What a run amounts to, derived from its events alone. `chat()` is `collect(streamChat())`,
 * so a caller that streams and collects gets exactly what `chat()` returns, and a
 * server or browser that only sees the events can rebuild the same result.
 */
import {
  createFoldState,
  createThread,
  reduceEvents,
  toResponse,
  addUsage,
  type ErrorPayload,
  type Event,
  type FinishReason,
  type FoldState,
  type HaltReason,
  type PendingInput,
  type PendingKind,
  pendingInputs,
  type Response,
  type Thread,
  type ToolResultPart,
  type Usage,
} from '@parlance/protocol';

/**
 * One model call of a run and the tool results it led to.
 *
 * @example
 * for (const step of result.steps) console.log(step.step, step.finishReason);
 */
export interface StepResult {
  step: number;
  /** The model's response in this step. */
  response: Response;
  /** Results of the tools this step ran, in call order. */
  toolResults: ToolResultPart[];
  finishReason: FinishReason;
  usage: Usage;
}

/**
 * A call waiting on the caller: the protocol's `PendingInput` (one rule, `pendingInputs`, derives them).
 *
 * @example
 * for (const p of result.pending as PendingCall[]) if (p.kind === 'approval') ask(p.toolCallId);
 */
export type PendingCall = PendingInput;

/**
 * What `chat` resolves to: the thread, each step, usage, why it stopped, the output, and what a paused run waits for.
 *
 * @example
 * const { thread, haltReason, pending, usage } = await engine.chat({ prompt: 'Hi' });
 */
export interface ChatResult<O = unknown> {
  thread: Thread;
  steps: StepResult[];
  usage: Usage;
  haltReason: HaltReason;
  /** The validated structured output (when `output` was given and the run completed). */
  output?: O;
  /** Calls waiting on the caller (client tools, approvals, questions). */
  pending: PendingCall[];
  error?: { code: ErrorPayload['code']; message: string };
}

interface OpenStep {
  step: number;
  toolResults: ToolResultPart[];
}

/**
 * The state `collect` folds a run's events into (the fold, steps, open step, questions asked).
 *
 * @example
 * const result = await collect(events); // builds a CollectState internally
 */
export interface CollectState {
  fold: FoldState;
  steps: StepResult[];
  open?: OpenStep;
  asked: Record<string, { kind: PendingKind; question?: string }>;
  objectSeen: boolean;
  finish?: Extract<Event, { type: 'chat-finish' }>;
}

export function createCollectState(): CollectState {
  return { fold: createFoldState(), steps: [], asked: {}, objectSeen: false };
}

/** Adds one event; `folded` is the event already folded by the caller (the engine folds each event once). */
export function addToCollect(state: CollectState, event: Event, folded?: FoldState): CollectState {
  const fold = folded ?? reduceEvents(state.fold, event);
  const next: CollectState = { ...state, fold };
  switch (event.type) {
    case 'step-start':
      next.open = { step: event.step, toolResults: [] };
      break;
    case 'tool-result':
      if (state.open && !event.providerExecuted) {
        const part: ToolResultPart = { type: 'tool-result', toolCallId: event.toolCallId, name: event.name, output: event.output };
        if (event.isError) part.isError = true;
        next.open = { ...state.open, toolResults: [...state.open.toolResults, part] };
      }
      break;
    case 'step-finish': {
      const open = state.open ?? { step: event.step, toolResults: [] };
      next.steps = [
        ...state.steps,
        { step: event.step, response: toResponse(fold), toolResults: open.toolResults, finishReason: event.finishReason, usage: event.usage },
      ];
      delete next.open;
      break;
    }
    case 'approval-requested':
      next.asked = { ...state.asked, [event.toolCallId]: { kind: 'approval' } };
      break;
    case 'ask-user':
      next.asked = { ...state.asked, [event.toolCallId]: { kind: 'ask-user', question: event.question } };
      break;
    case 'object-delta':
      next.objectSeen = true;
      break;
    case 'chat-finish':
      next.finish = event;
      break;
  }
  return next;
}

const WAITING: ReadonlySet<HaltReason> = new Set(['approval', 'ask-user', 'client-tool-calls']);

export function toChatResult<O = unknown>(state: CollectState): ChatResult<O> {
  const finish = state.finish;
  const thread: Thread = finish?.thread ?? createThread('unknown', state.fold.messages);
  const haltReason: HaltReason = finish?.haltReason ?? 'error';
  const result: ChatResult<O> = {
    thread,
    steps: state.steps,
    usage: finish?.usage ?? addUsage(...state.steps.map((s) => s.usage)),
    haltReason,
    pending: [],
  };
  if (WAITING.has(haltReason)) {
    // What the thread's pause (written by the run-paused event) still waits for: the same rule the client uses.
    result.pending = pendingInputs(thread.messages);
  }
  // The engine emits the validated object as the last object-delta before a completed finish.
  if (haltReason === 'completed' && state.objectSeen) result.output = state.fold.object as O;
  if (finish?.error) result.error = finish.error;
  else if (!finish) result.error = { code: 'invalid_response', message: 'The run ended without a chat-finish event' };
  return result;
}

/**
 * Folds a run's events into its ChatResult.
 *
 * @example
 * const result = await collect(engine.streamChat({ model: 'openai:gpt-5-mini', prompt: 'Hi' }));
 * console.log(result.haltReason, result.usage);
 */
export async function collect<O = unknown>(events: AsyncIterable<Event> | Iterable<Event>): Promise<ChatResult<O>> {
  let state = createCollectState();
  for await (const event of events) state = addToCollect(state, event);
  return toChatResult<O>(state);
}
