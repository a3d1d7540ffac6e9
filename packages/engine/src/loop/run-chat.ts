/**
 * The loop: stream a step, run the tools it asked for, feed the results back, and
 * stop for exactly one stated reason. Everything it does is an event; the thread it
 * reports is the fold of those events onto the input thread, so a client folding
 * the same events sees the same conversation.
 */
import {
  MODEL_EVENT_TYPES,
  ParlanceError,
  addUsage,
  createFoldState,
  createThread,
  errorEvent,
  reduceEvents,
  toResponse,
  type ChatFinishEvent,
  type ErrorCode,
  type Event,
  type FoldState,
  type HaltReason,
  type LanguageModel,
  type Message,
  type ModelRequest,
  type PendingInput,
  type Response,
  type ToolCallPart,
  type Usage,
} from '@parlance/protocol';
import type { Hooks, ToolErrorPolicy } from '../options.ts';
import {
  OUTPUT_TOOL_NAME,
  applyOutput,
  createPartialObjectParser,
  parseOutputText,
  retryMessage,
  type OutputMode,
} from '../output/structured-output.ts';
import type { ResolvedSchema } from '../tools/schema.ts';
import type { AnyTool } from '../tools/tool.ts';
import type { ContextPolicy } from '../context/context-policy.ts';
import { createEventQueue, DEFAULT_MAX_QUEUED_BYTES } from './event-queue.ts';
import { withoutFailedTurns } from './failed-turns.ts';
import { owedCalls, withMissingResults } from './pending.ts';
import { addToCollect, createCollectState, toChatResult, type CollectState, type StepResult } from './result.ts';
import { HookError, isAbort, runToolCall, type CallOutcome, type Resolution } from './run-tool.ts';

export interface RunConfig {
  model: LanguageModel;
  threadId: string;
  messages: Message[];
  /** The request without messages (system, tool definitions, sampling settings, extras). */
  base: Omit<ModelRequest, 'model' | 'messages'>;
  tools: ReadonlyMap<string, AnyTool>;
  /** Re-reads the tools before every model call (tool sources whose list may change); replaces `tools`. */
  loadTools?: (warn?: (message: string) => void) => Promise<ReadonlyMap<string, AnyTool>>;
  /** The input thread's metadata, kept on the thread the run reports. */
  threadMetadata?: Record<string, unknown>;
  /** The run changed `threadMetadata` (it records its trace context): `chat-finish` carries it as `metadata`. */
  metadataChanged?: boolean;
  hooks: Hooks;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  maxSteps: number;
  maxRetries: number;
  toolTimeoutMs: number;
  onToolError: ToolErrorPolicy;
  haltWhen?: (step: StepResult) => boolean;
  output?: { schema: ResolvedSchema; mode: OutputMode };
  resume: ReadonlyMap<string, Resolution>;
  generateId: () => string;
  /** Fits each request to the model's context window (context/context-policy.ts). */
  context?: ContextPolicy;
  /** Bytes of events the run holds for its reader before it stops reading the model (default 256 KiB). */
  maxQueuedBytes?: number;
}

/** Events a model may produce; anything else (a misbehaving remote) is dropped. */
const MODEL_EVENTS: ReadonlySet<Event['type']> = new Set(MODEL_EVENT_TYPES);

const ABORTED = Symbol('aborted');
/** The provider refused the request as too long before answering anything (nothing was emitted). */
const REFUSED = Symbol('refused');

class Halt {
  constructor(
    readonly reason: HaltReason,
    readonly error?: { code: ErrorCode; message: string },
  ) {}
}

export function runChat(config: RunConfig): AsyncIterable<Event> {
  const controller = new AbortController();
  const queue = createEventQueue<Event>(() => controller.abort(new ParlanceError('aborted', 'The reader stopped')), {
    maxBytes: config.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    sizeOf: eventBytes,
  });
  void drive({ ...config, model: paced(config.model, queue.ready) }, controller, queue.push, queue.end);
  return queue;
}

/** An event's size for the queue's bound: its streamed text, plus a flat 64 bytes for the rest. */
const eventBytes = (event: Event): number => 64 + ('delta' in event && typeof event.delta === 'string' ? event.delta.length : 0);

/**
 * The model, read no faster than the run's reader takes events: each read of its stream waits
 * for the queue to be under its bound first (backpressure up to the provider's HTTP body, which
 * is pulled, not pushed). Everything else is the model itself (a prototype, so hooks see it whole).
 */
function paced(model: LanguageModel, ready: () => Promise<void>): LanguageModel {
  const out = Object.create(model) as LanguageModel;
  Object.defineProperty(out, 'stream', {
    value: (request: Omit<ModelRequest, 'model'>, options?: Parameters<LanguageModel['stream']>[1]): AsyncIterable<Event> => ({
      [Symbol.asyncIterator]() {
        const source = model.stream(request, options)[Symbol.asyncIterator]();
        return {
          next: async () => {
            await ready();
            return source.next();
          },
          return: async (value?: unknown) => (await source.return?.(value)) ?? { done: true, value: undefined },
        };
      },
    }),
  });
  return out;
}

async function drive(config: RunConfig, controller: AbortController, output: (event: Event) => void, end: () => void): Promise<void> {
  const { model, hooks } = config;
  const signal = controller.signal;
  const onAbort = () => controller.abort(config.signal?.reason);
  if (config.signal?.aborted) onAbort();
  else config.signal?.addEventListener('abort', onAbort, { once: true });

  let fold: FoldState = createFoldState(config.messages);
  // The collected result shares the engine's fold (one fold per event), started on the thread.
  let collected: CollectState = { ...createCollectState(), fold };
  let usage: Usage = {};
  let tools = config.tools;
  /** Retry feedback for structured output, shown to the model after the message it answers. */
  const feedback = new Map<string, string>();

  const emit = (event: Event) => {
    fold = reduceEvents(fold, event);
    collected = addToCollect(collected, event, fold);
    output(event);
    if (hooks.onEvent) {
      try {
        hooks.onEvent(event);
      } catch (error) {
        throw new HookError('onEvent', error);
      }
    }
  };

  const abortedNow = () => signal.aborted;

  /** Ids of tool messages: a result opens one only when the last message is not a tool message already. */
  const emitResult = (outcome: Extract<CallOutcome, { type: 'result' }>) => {
    const event: Event = { type: 'tool-result', toolCallId: outcome.call.id, name: outcome.call.name, output: outcome.output };
    if (outcome.isError) event.isError = true;
    if (fold.messages[fold.messages.length - 1]?.role !== 'tool') event.messageId = config.generateId();
    emit(event);
  };

  /** Runs calls in parallel, reports them in call order; returns a halt, or undefined to go on. */
  const processCalls = async (calls: ToolCallPart[], resume: ReadonlyMap<string, Resolution>): Promise<Halt | undefined> => {
    const context = {
      tools,
      hooks,
      signal,
      defaultTimeoutMs: config.toolTimeoutMs,
      messages: fold.messages,
    };
    const settled = Promise.all(calls.map((call) => runToolCall(call, context, resume.get(call.id))));
    const outcomes = await raceAbort(settled, signal);
    if (outcomes === ABORTED) throw new Halt('cancelled');
    let toolError: Halt | undefined;
    const waiting = new Set<string>();
    const waitingFor: PendingInput[] = [];
    for (const outcome of outcomes) {
      if (outcome.type === 'result') {
        emitResult(outcome);
        if (outcome.toolError !== undefined && !toolError && decide(config.onToolError, outcome) === 'halt') {
          const text = typeof outcome.output === 'string' ? outcome.output : 'A tool failed';
          toolError = new Halt('tool-error', { code: 'tool_error', message: text });
        }
        continue;
      }
      waiting.add(outcome.pending.kind);
      const { kind, toolCallId, name, input, question } = outcome.pending;
      const pending: PendingInput = { kind, toolCallId, name, input };
      if (question !== undefined) pending.question = question;
      waitingFor.push(pending);
      if (outcome.pending.kind === 'approval') {
        emit({ type: 'approval-requested', toolCallId: outcome.call.id, name: outcome.call.name, input: outcome.call.input });
      } else if (outcome.pending.kind === 'ask-user') {
        emit({ type: 'ask-user', toolCallId: outcome.call.id, question: outcome.pending.question ?? '' });
      }
    }
    if (toolError) return toolError;
    // The pause becomes part of the thread (the fold writes it to the paused message), so a reload keeps it.
    if (waitingFor.length > 0) emit({ type: 'run-paused', waitingFor });
    if (waiting.has('approval')) return new Halt('approval');
    if (waiting.has('ask-user')) return new Halt('ask-user');
    if (waiting.has('client-tool')) return new Halt('client-tool-calls');
    return undefined;
  };

  const buildRequest = (): Omit<ModelRequest, 'model'> => {
    let messages = withMissingResults(withoutFailedTurns(fold.messages));
    if (feedback.size > 0) {
      messages = messages.flatMap((m) => {
        const text = feedback.get(m.id);
        return text === undefined ? [m] : [m, { id: `${m.id}-feedback`, role: 'user' as const, parts: [{ type: 'text' as const, text }] }];
      });
    }
    const request: Omit<ModelRequest, 'model'> = { ...config.base, messages };
    if (config.loadTools) {
      if (tools.size > 0) request.tools = [...tools.values()].map((t) => t.definition);
      else delete request.tools;
    }
    return config.output ? applyOutput(request, config.output.schema, config.output.mode) : request;
  };

  /** The provider's message when it refused a request as too long. */
  let refusal = '';

  /** Streams one model response into events; returns it once it finished (or was cut). */
  const streamStep = async (request: Omit<ModelRequest, 'model'>, holdRefusal = false): Promise<Response | typeof ABORTED | typeof REFUSED> => {
    const messageId = config.generateId();
    const provenance = { provider: model.provider, model: model.modelId, dialect: model.dialect };
    const partial = config.output ? createPartialObjectParser() : undefined;
    const outputToolIds = new Set<string>();
    let started = false;
    let finished = false;
    let held: Extract<Event, { type: 'message-start' }> | undefined;
    const callOptions: { signal: AbortSignal; headers?: Record<string, string> } = { signal };
    if (config.headers) callOptions.headers = config.headers;
    const iterator = model.stream(request, callOptions)[Symbol.asyncIterator]();
    const abortable = abortableWaits(signal);
    const start = (event?: Extract<Event, { type: 'message-start' }>) => {
      started = true;
      emit({ ...event, type: 'message-start', messageId, provenance: event?.provenance ?? provenance });
    };
    try {
      while (!finished) {
        const next = await abortable.wait(iterator.next());
        if (next === ABORTED) break;
        if (next.done) break;
        const event = next.value;
        if (!MODEL_EVENTS.has(event.type)) continue;
        if (event.type === 'message-start') {
          // Held while a refusal could still be retried, so a refused attempt leaves nothing behind.
          if (holdRefusal) held = event;
          else if (!started) start(event);
          continue;
        }
        if (holdRefusal && !started && event.type === 'error' && event.code === 'context_length_exceeded') {
          refusal = event.message;
          return REFUSED;
        }
        if (!started) start(held);
        emit(event);
        if (event.type === 'finish') finished = true;
        if (!partial || !config.output) continue;
        // Partial objects: from the text in native mode, from the output tool's arguments in tool mode.
        let delta: string | undefined;
        if (config.output.mode === 'native' && event.type === 'text-delta') delta = event.delta;
        if (event.type === 'tool-call-start' && event.name === OUTPUT_TOOL_NAME) outputToolIds.add(event.id);
        if (event.type === 'tool-call-delta' && outputToolIds.has(event.id)) delta = event.delta;
        if (delta === undefined) continue;
        const parsed = partial.push(delta);
        if (parsed.changed) emit({ type: 'object-delta', object: parsed.value });
      }
      // The parser skips deltas (see createPartialObjectParser): show the whole partial object at the end.
      const rest = partial && !abortedNow() ? partial.flush() : undefined;
      if (rest?.changed) emit({ type: 'object-delta', object: rest.value });
    } catch (error) {
      if (error instanceof HookError) throw error;
      // The model broke its contract and threw: keep what arrived, report the failure.
      if (!abortedNow()) {
        if (!started) start();
        emit(errorEvent(ParlanceError.from(error, 'invalid_response')));
        emit({ type: 'finish', finishReason: 'error', usage: {} });
        finished = true;
      }
    } finally {
      abortable.dispose();
      // Release the provider stream (closes the HTTP body) without waiting on it.
      if (!finished || abortedNow()) void Promise.resolve(iterator.return?.()).catch(() => {});
    }
    if (!started) start();
    if (abortedNow()) return ABORTED;
    if (!finished) {
      emit(errorEvent(new ParlanceError('invalid_response', 'The model stream ended before the response finished')));
      emit({ type: 'finish', finishReason: 'error', usage: {} });
    }
    return toResponse(fold);
  };

  const finishStep = (step: number, response: Response | undefined, finishReason = response?.finishReason ?? 'cancelled') => {
    const stepUsage = response?.usage ?? fold.usage;
    usage = addUsage(usage, stepUsage);
    emit({ type: 'step-finish', step, finishReason, usage: stepUsage });
  };

  const lastStep = (): StepResult => toChatResult(collected).steps.at(-1)!;

  // What a tool source left out, said once per run (a `warning` event), not once per round.
  const warned = new Set<string>();
  const warnOnce = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    emit({ type: 'warning', setting: 'tools', message });
  };

  const loop = async (): Promise<Halt> => {
    // Resume: the calls the thread still owes results for, with what the caller sent.
    const owed = owedCalls(fold.messages);
    if (config.loadTools) tools = await config.loadTools(warnOnce);
    if (owed.length > 0) {
      const halt = await processCalls(owed, config.resume);
      if (halt) return halt;
    }
    let retries = 0;
    for (let step = 0; ; step++) {
      if (step >= config.maxSteps) return new Halt('max-steps');
      emit({ type: 'step-start', step });
      if (config.loadTools && step > 0) tools = await config.loadTools(warnOnce);
      let request = buildRequest();
      // A summary's model call is part of the run: its usage counts in the run's total.
      const fit = {
        emit: (event: Event) => {
          if (event.type === 'summary') usage = addUsage(usage, event.usage);
          emit(event);
        },
        signal,
      };
      if (config.context) request = await config.context.fit(request, fit);
      if (hooks.beforeRequest) {
        const replaced = await callHook('beforeRequest', () => hooks.beforeRequest!(request, { step, model }));
        if (replaced) request = replaced;
      }
      let attempt = await streamStep(request, config.context?.retriesRefusal);
      if (attempt === REFUSED) {
        // Once: the strategy again, sized by the refusal, then the same call.
        request = await config.context!.fit(request, { ...fit, refused: refusal });
        attempt = await streamStep(request);
      }
      // Without holdRefusal a step never answers REFUSED.
      const response = attempt as Response | typeof ABORTED;
      if (response !== ABORTED) config.context?.observe(request, response);
      if (response === ABORTED) {
        finishStep(step, undefined, 'cancelled');
        return new Halt('cancelled');
      }
      const reason = response.finishReason;
      if (reason === 'error' || reason === 'cancelled') {
        finishStep(step, response);
        const error = response.error ?? { code: 'unknown' as const, message: 'The model response failed' };
        return new Halt('error', { code: error.code, message: error.message });
      }
      if (reason === 'length' || reason === 'content-filter' || reason === 'refusal') {
        finishStep(step, response);
        return new Halt(reason === 'length' ? 'length' : 'content-filter');
      }

      const calls = response.message.parts.filter((p): p is ToolCallPart => p.type === 'tool-call' && !p.providerExecuted);
      const outputCall = config.output?.mode === 'tool' ? calls.find((c) => c.name === OUTPUT_TOOL_NAME) : undefined;
      const toolCalls = calls.filter((c) => c !== outputCall);
      if (toolCalls.length > 0) {
        const halt = await processCalls(toolCalls, new Map());
        if (halt) {
          finishStep(step, response);
          return halt;
        }
      }

      // Structured output: the object is in the text (native) or in the output tool's input.
      const candidate = outputCall ? { ok: true as const, value: outputCall.input } : parseOutputText(textOf(response));
      if (config.output && (outputCall || toolCalls.length === 0)) {
        const checked = candidate.ok ? await config.output.schema.validate(candidate.value) : candidate;
        if (outputCall) {
          emitResult({
            type: 'result',
            call: outputCall,
            output: checked.ok ? 'Accepted.' : retryMessage(checked.message),
            isError: !checked.ok,
          });
        }
        if (checked.ok) {
          emit({ type: 'object-delta', object: checked.value });
          finishStep(step, response);
          return new Halt('completed');
        }
        if (!outputCall) feedback.set(response.message.id, retryMessage(checked.message));
        finishStep(step, response);
        if (retries >= config.maxRetries) {
          return new Halt('error', { code: 'invalid_response', message: `The structured output did not match the schema: ${checked.message}` });
        }
        retries++;
        continue;
      }

      finishStep(step, response);
      if (toolCalls.length === 0 && reason !== 'pause') return new Halt('completed');
      if (config.haltWhen && (await callHook('haltWhen', () => config.haltWhen!(lastStep())))) return new Halt('halt-when');
    }
  };

  let halt: Halt;
  try {
    halt = await loop();
  } catch (error) {
    if (error instanceof Halt) halt = error;
    else if (abortedNow() || isAbort(error)) halt = new Halt('cancelled');
    else {
      const failure = error instanceof HookError ? new ParlanceError('unknown', error.message, { cause: error.original }) : ParlanceError.from(error);
      halt = new Halt('error', { code: failure.code, message: failure.message });
    }
  }
  if (halt.reason !== 'cancelled' && abortedNow()) halt = new Halt('cancelled');
  config.signal?.removeEventListener('abort', onAbort);

  let finish: ChatFinishEvent = { type: 'chat-finish', haltReason: halt.reason, usage };
  if (halt.error) finish.error = halt.error;
  // The thread is for callers in this process; a server sends the events alone (they fold to it).
  const withThread = (event: ChatFinishEvent): ChatFinishEvent => {
    const out: ChatFinishEvent = { ...event, thread: createThread(config.threadId, reduceEvents(fold, event).messages, config.threadMetadata) };
    if (config.metadataChanged && config.threadMetadata) out.metadata = config.threadMetadata;
    return out;
  };
  finish = withThread(finish);
  if (hooks.onFinish) {
    try {
      await hooks.onFinish(toChatResult(addToCollect(collected, finish)));
    } catch (error) {
      finish = withThread({ type: 'chat-finish', haltReason: 'error', usage, error: { code: 'unknown', message: new HookError('onFinish', error).message } });
    }
  }
  // The one chat-finish goes out whatever happens; a failing onEvent cannot stop it.
  fold = reduceEvents(fold, finish);
  output(finish);
  try {
    hooks.onEvent?.(finish);
  } catch {
    // Already finishing: nothing left to report the failure to.
  }
  end();
}

async function callHook<T>(name: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new HookError(name, error);
  }
}

function decide(policy: ToolErrorPolicy, outcome: Extract<CallOutcome, { type: 'result' }>): 'continue' | 'halt' {
  if (typeof policy === 'function') {
    return policy(outcome.toolError, { toolCallId: outcome.call.id, name: outcome.call.name, input: outcome.call.input });
  }
  return policy;
}

function textOf(response: Response): string {
  return response.message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/**
 * Waits that end early on abort, with one abort listener for all of them (a model stream's
 * `next()` per event), not one listener and one race per wait. `dispose` removes the listener.
 */
function abortableWaits(signal: AbortSignal): { wait<T>(promise: Promise<T>): Promise<T | typeof ABORTED>; dispose(): void } {
  let wake: ((value: typeof ABORTED) => void) | undefined;
  const onAbort = () => wake?.(ABORTED);
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    wait<T>(promise: Promise<T>) {
      if (signal.aborted) {
        promise.catch(() => {});
        return Promise.resolve(ABORTED);
      }
      return new Promise<T | typeof ABORTED>((resolve, reject) => {
        wake = resolve;
        promise.then(resolve, (error) => (signal.aborted ? resolve(ABORTED) : reject(error)));
      });
    },
    dispose: () => signal.removeEventListener('abort', onAbort),
  };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve(ABORTED);
        else reject(error);
      },
    );
  });
}
