/**
 * Calling the model, one step: its stream read into events (a message-start first, partial
 * objects for structured output, exactly one finish), whatever the model does: throws, ends
 * early, or is aborted. A refusal as too long may be held back so it can be retried unseen.
 */
import {
  MODEL_EVENT_TYPES,
  ParlanceError,
  errorEvent,
  mergeUsage,
  takeReady,
  toResponse,
  type Event,
  type FoldState,
  type LanguageModel,
  type ModelRequest,
  type Response,
} from '@parlance/protocol';
import { OUTPUT_TOOL_NAME, createPartialObjectParser, type OutputMode } from '../output/structured-output.ts';
import { ABORTED, abortableWaits } from './abortable.ts';
import { HookError } from './run-tool.ts';

/** Events a model may produce; anything else (a misbehaving remote) is dropped. */
const MODEL_EVENTS: ReadonlySet<Event['type']> = new Set(MODEL_EVENT_TYPES);

/** What a step reads the model with and writes its events to. */
export interface StepContext {
  model: LanguageModel;
  signal: AbortSignal;
  headers?: Record<string, string> | undefined;
  generateId: () => string;
  /** Structured output's mode: partial objects are parsed from the text or the output tool's input. */
  outputMode?: OutputMode | undefined;
  emit: (event: Event) => void;
  /** The run's fold after the events so far. */
  fold: () => FoldState;
}

/** The provider refused the request as too long before answering anything (nothing was emitted). */
export interface Refused {
  refused: string;
}

/**
 * Streams one model response into events; returns it once it finished (or was cut). Every
 * response ends with one `finish` carrying the usage reported so far (a provider's input count
 * arrives with its first event, the output count often only at the end): a stopped or failed
 * response keeps what it cost, whatever usage the model's own closing `finish` held.
 */
export async function streamStep(ctx: StepContext, request: Omit<ModelRequest, 'model'>, holdRefusal = false): Promise<Response | typeof ABORTED | Refused> {
  const { model, signal, emit } = ctx;
  const aborted = () => signal.aborted;
  const messageId = ctx.generateId();
  const provenance = { provider: model.provider, model: model.modelId, dialect: model.dialect };
  const partial = ctx.outputMode ? createPartialObjectParser() : undefined;
  const outputToolIds = new Set<string>();
  let started = false;
  let finished = false;
  let held: Extract<Event, { type: 'message-start' }> | undefined;
  const callOptions: { signal: AbortSignal; headers?: Record<string, string> } = { signal };
  if (ctx.headers) callOptions.headers = ctx.headers;
  const iterator = model.stream(request, callOptions)[Symbol.asyncIterator]();
  const abortable = abortableWaits(signal);
  const start = (event?: Extract<Event, { type: 'message-start' }>) => {
    started = true;
    emit({ ...event, type: 'message-start', messageId, provenance: event?.provenance ?? provenance });
  };
  /** The response's last event: its own usage laid over what the response reported before it. */
  const finish = (event: Extract<Event, { type: 'finish' }>) => {
    finished = true;
    emit({ ...event, usage: mergeUsage(ctx.fold().usage, event.usage) });
  };
  try {
    /** One model event; returns the refusal to retry unseen, if it is one. */
    const take = (event: Event): Refused | undefined => {
      if (!MODEL_EVENTS.has(event.type)) return undefined;
      if (event.type === 'message-start') {
        // Held while a refusal could still be retried, so a refused attempt leaves nothing behind.
        if (holdRefusal) held = event;
        else if (!started) start(event);
        return undefined;
      }
      if (holdRefusal && !started && event.type === 'error' && event.code === 'context_length_exceeded') {
        return { refused: event.message };
      }
      if (!started) start(held);
      if (event.type === 'finish') finish(event);
      else emit(event);
      if (!partial || !ctx.outputMode) return undefined;
      // Partial objects: from the text in native mode, from the output tool's arguments in tool mode.
      let delta: string | undefined;
      if (ctx.outputMode === 'native' && event.type === 'text-delta') delta = event.delta;
      if (event.type === 'tool-call-start' && event.name === OUTPUT_TOOL_NAME) outputToolIds.add(event.id);
      if (event.type === 'tool-call-delta' && outputToolIds.has(event.id)) delta = event.delta;
      if (delta === undefined) return undefined;
      const parsed = partial.push(delta);
      if (parsed.changed) emit({ type: 'object-delta', object: parsed.value });
      return undefined;
    };
    while (!finished) {
      const next = await abortable.wait(iterator.next());
      if (next === ABORTED) break;
      if (next.done) break;
      // Then what the model already holds (the rest of a decoded batch), without a wait per event.
      for (let event: Event | undefined = next.value; event !== undefined; event = finished || aborted() ? undefined : takeReady(iterator)) {
        const refused = take(event);
        if (refused) return refused;
      }
    }
    // The parser skips deltas (see createPartialObjectParser): show the whole partial object at the end.
    const rest = partial && !aborted() ? partial.flush() : undefined;
    if (rest?.changed) emit({ type: 'object-delta', object: rest.value });
  } catch (error) {
    if (error instanceof HookError) throw error;
    // The model broke its contract and threw: keep what arrived, report the failure.
    if (!aborted()) {
      if (!started) start();
      emit(errorEvent(ParlanceError.from(error, 'invalid_response')));
      finish({ type: 'finish', finishReason: 'error', usage: {} });
    }
  } finally {
    abortable.dispose();
    // Release the provider stream (closes the HTTP body) without waiting on it.
    if (!finished || aborted()) void Promise.resolve(iterator.return?.()).catch(() => {});
  }
  if (!started) start();
  if (aborted()) {
    // Stopped: the response still ends (with what it cost so far), then the run halts cancelled.
    if (!finished) finish({ type: 'finish', finishReason: 'cancelled', usage: {} });
    return ABORTED;
  }
  if (!finished) {
    emit(errorEvent(new ParlanceError('invalid_response', 'The model stream ended before the response finished')));
    finish({ type: 'finish', finishReason: 'error', usage: {} });
  }
  return toResponse(ctx.fold());
}
