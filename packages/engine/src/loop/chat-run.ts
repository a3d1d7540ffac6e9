/**
 * One run of the loop as an object whose methods are its phases, in the way TanStack Query's
 * QueryObserver is the phases of one query: call the model, settle the tool calls it asked for
 * (running them, or pausing for what they wait on), validate structured output, decide whether
 * to go on, and finish with exactly one `chat-finish`. The state they share (the fold of every
 * event so far, usage, the current tools, output feedback) lives here; `loop()` reads in one look.
 */
import {
  addUsage,
  createFoldState,
  createThread,
  reduceEvents,
  toResponse,
  type ChatFinishEvent,
  type Event,
  type FoldState,
  type ModelRequest,
  type PendingInput,
  type PendingKind,
  type Response,
  type ToolCallPart,
  type Usage,
} from '@parlance/protocol';
import { OUTPUT_TOOL_NAME, applyOutput, parseOutputText, retryMessage } from '../output/structured-output.ts';
import type { AnyTool } from '../tools/tool.ts';
import { ABORTED, raceAbort } from './abortable.ts';
import { withoutFailedTurns } from './failed-turns.ts';
import { Halt, answeredHalt, modelEndHalt, pauseHalt, toolErrorHalt } from './halt.ts';
import { owedCalls, unresolvedCalls, withMissingResults } from './pending.ts';
import { addToCollect, createCollectState, toChatResult, type CollectState, type StepResult } from './result.ts';
import type { RunConfig } from './run-config.ts';
import { HookError, runToolCall, type CallOutcome, type Resolution, type RunToolContext } from './run-tool.ts';
import { readCheckpoint, type ReadCheckpoint } from './checkpoint.ts';
import { streamStep } from './stream-step.ts';

/** `validateOutput`'s answer when the model gets another try. */
export const RETRY = Symbol('retry');

type ResultOutcome = Extract<CallOutcome, { type: 'result' }>;

/** A streamed delta's event types: consecutive ones of one block fold as one (see `ChatRun.pending`). */
type DeltaEvent = Extract<Event, { type: 'text-delta' | 'reasoning-delta' | 'tool-call-delta' }>;

export class ChatRun {
  private folded: FoldState;
  /**
   * Deltas of one block emitted since the last fold, joined: folding a delta copies its message and
   * parts (the fold is immutable), so a run of deltas folds once, when the fold is next read or
   * another event arrives. Folding `a` then `b` gives the same state as folding `a + b` (text,
   * reasoning and tool input are concatenated). Bounded by the block's own text, which the fold holds anyway.
   */
  private pending: { type: DeltaEvent['type']; id: string; delta: string; events: number } | undefined;
  /** The run's fold, with the pending deltas folded in. */
  private get fold(): FoldState {
    this.foldPending();
    return this.folded;
  }
  private set fold(state: FoldState) {
    this.pending = undefined;
    this.folded = state;
  }
  /** The collected result shares the run's fold (one fold per event), started on the thread. */
  private collected: CollectState;
  /**
   * Whether `collected` holds the current fold. A delta changes nothing the collected result holds
   * but its fold, so `emit` does not copy the collected state per delta (it did: one object per
   * streamed delta); `current()` brings its fold up to date where it is read.
   */
  private collectedFold = true;
  private usage: Usage = {};
  private tools: ReadonlyMap<string, AnyTool>;
  /** Retry feedback for structured output, shown to the model after the message it answers. */
  private readonly feedback = new Map<string, string>();
  private retries = 0;
  /** What a tool source left out, said once per run (a `warning` event), not once per round. */
  private readonly warned = new Set<string>();
  /** Where a run going on from a checkpoint starts (`config.checkpoint`). */
  private readonly checkpoint: ReadCheckpoint | undefined;

  constructor(
    private readonly config: RunConfig,
    private readonly signal: AbortSignal,
    private readonly output: (event: Event) => void,
  ) {
    this.folded = createFoldState(config.messages);
    this.collected = { ...createCollectState(), fold: this.fold };
    this.tools = config.tools;
    if (config.checkpoint) {
      // What the stopped run recorded is this run's past: folded and collected, not sent again.
      for (const event of config.checkpoint.events) {
        this.fold = reduceEvents(this.fold, event);
        this.collected = addToCollect(this.collected, event, this.fold);
      }
      this.checkpoint = readCheckpoint(config.checkpoint.events, this.fold, config.resume.size > 0);
      this.usage = this.checkpoint.usage;
    }
  }

  /** The run: go on from a checkpoint or settle what a resumed thread owes, then step until a phase says why it stops. */
  async loop(): Promise<Halt> {
    const from = await this.continueFrom();
    if (from instanceof Halt) return from;
    for (let step = from; ; step++) {
      if (step >= this.config.maxSteps) return new Halt('max-steps');
      this.emit({ type: 'step-start', step });
      if (this.config.loadTools && step > 0) this.tools = await this.config.loadTools(this.warnOnce);
      const response = await this.callModel(step);
      if (response === ABORTED) return this.endStep(step, undefined, new Halt('cancelled'));
      const next = await this.afterModel(step, response);
      if (next === RETRY) continue;
      if (next) return next;
    }
  }

  /**
   * Where the loop starts: step 0 after settling what a resumed thread owes, or, going on from a
   * checkpoint, the step it cut: a model call cut off is withdrawn (`step-restarted`) and made again;
   * a step whose response was recorded settles its calls that have no result and goes on.
   */
  async continueFrom(): Promise<number | Halt> {
    const at = this.checkpoint?.at ?? { kind: 'start' };
    if (at.kind === 'start') return (await this.settleOwedCalls()) ?? 0;
    if (at.kind === 'model') {
      const restarted: Event = { type: 'step-restarted', step: at.step, reason: this.config.checkpoint!.reason };
      if (at.messageId !== undefined) restarted.messageId = at.messageId;
      this.emit(restarted);
      return at.step;
    }
    if (this.config.loadTools) this.tools = await this.config.loadTools(this.warnOnce);
    const response = toResponse(this.fold);
    if (at.kind === 'tools') {
      const next = await this.afterModel(at.step, response);
      return next === RETRY || next === undefined ? at.step + 1 : next;
    }
    // The step finished; only the decision after it may be missing (a pause or a failure ended the run).
    const last = [...this.fold.messages].reverse().find((m) => m.role === 'assistant');
    const paused = last?.pause ? pauseHalt(new Set(last.pause.waitingFor.map((p) => p.kind))) : undefined;
    return modelEndHalt(response) ?? paused ?? (await this.decideNext(response, this.callsOf(response).toolCalls.length)) ?? at.step + 1;
  }

  /**
   * A step once its model response is in: settle the calls it asked for (those without a result:
   * a step continued from a checkpoint has some), validate structured output, finish the step and
   * decide whether to go on. Undefined: the next step; `RETRY`: the model gets another try.
   */
  async afterModel(step: number, response: Response): Promise<Halt | typeof RETRY | undefined> {
    const ended = modelEndHalt(response);
    if (ended) return this.endStep(step, response, ended);
    const { toolCalls, outputCall } = this.callsOf(response);
    let owed = toolCalls;
    if (this.checkpoint) {
      const open = new Set(unresolvedCalls(this.fold.messages).map((c) => c.id));
      owed = toolCalls.filter((c) => open.has(c.id));
    }
    if (owed.length > 0 && this.config.taken) {
      // A call starts once the step that asked for it is taken by the reader (stored, on a server).
      if ((await raceAbort(this.config.taken(), this.signal)) === ABORTED) throw new Halt('cancelled');
    }
    const paused = owed.length > 0 ? await this.settleToolCalls(owed, new Map()) : undefined;
    if (paused) return this.endStep(step, response, paused);
    if (this.config.output && (outputCall || toolCalls.length === 0)) return this.validateOutput(step, response, outputCall);
    this.finishStep(step, response);
    return this.decideNext(response, toolCalls.length);
  }

  private foldPending(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    const state = reduceEvents(this.folded, { type: pending.type, id: pending.id, delta: pending.delta });
    // The fold counts events (a resume cursor elsewhere): as many as were emitted.
    state.count += pending.events - 1;
    this.folded = state;
  }

  /** The collected result with its fold up to date. */
  private current(): CollectState {
    if (!this.collectedFold) {
      this.collected = { ...this.collected, fold: this.fold };
      this.collectedFold = true;
    }
    return this.collected;
  }

  /** Every event goes through here: folded, collected, sent, shown to `onEvent`. */
  emit(event: Event): void {
    if (event.type === 'text-delta' || event.type === 'reasoning-delta' || event.type === 'tool-call-delta') {
      const pending = this.pending;
      if (pending !== undefined && pending.type === event.type && pending.id === event.id) {
        pending.delta += event.delta;
        pending.events++;
      } else {
        this.foldPending();
        this.pending = { type: event.type, id: event.id, delta: event.delta, events: 1 };
      }
      this.collectedFold = false;
    } else {
      this.fold = reduceEvents(this.fold, event);
      this.collected = addToCollect(this.collected, event, this.fold);
      this.collectedFold = true;
    }
    this.output(event);
    if (this.config.hooks.onEvent) {
      try {
        this.config.hooks.onEvent(event);
      } catch (error) {
        throw new HookError('onEvent', error);
      }
    }
  }

  /** The messages so far (the input thread with every event folded on). */
  get messages(): FoldState['messages'] {
    return this.fold.messages;
  }

  /** Resume: the calls the thread still owes results for, settled with what the caller sent. */
  async settleOwedCalls(): Promise<Halt | undefined> {
    const owed = owedCalls(this.fold.messages);
    if (this.config.loadTools) this.tools = await this.config.loadTools(this.warnOnce);
    return owed.length > 0 ? this.settleToolCalls(owed, this.config.resume) : undefined;
  }

  /** The request of the next step: the thread (failed turns out, missing results filled), feedback, tools, output. */
  requestForStep(): Omit<ModelRequest, 'model'> {
    const { config } = this;
    let messages = withMissingResults(withoutFailedTurns(this.fold.messages));
    if (this.feedback.size > 0) {
      messages = messages.flatMap((m) => {
        const text = this.feedback.get(m.id);
        return text === undefined ? [m] : [m, { id: `${m.id}-feedback`, role: 'user' as const, parts: [{ type: 'text' as const, text }] }];
      });
    }
    const request: Omit<ModelRequest, 'model'> = { ...config.base, messages };
    if (config.loadTools) {
      if (this.tools.size > 0) request.tools = [...this.tools.values()].map((t) => t.definition);
      else delete request.tools;
    }
    return config.output ? applyOutput(request, config.output.schema, config.output.mode) : request;
  }

  /**
   * Phase 1, call the model: the request fitted to the context window and offered to
   * `beforeRequest`, streamed into events; a refusal as too long is fitted again once, unseen.
   */
  async callModel(step: number): Promise<Response | typeof ABORTED> {
    const { config } = this;
    let request = this.requestForStep();
    // A summary's model call is part of the run: its usage counts in the run's total.
    const fit = {
      emit: (event: Event) => {
        if (event.type === 'summary') this.usage = addUsage(this.usage, event.usage);
        this.emit(event);
      },
      signal: this.signal,
    };
    if (config.context) request = await config.context.fit(request, fit);
    if (config.hooks.beforeRequest) {
      const replaced = await callHook('beforeRequest', () => config.hooks.beforeRequest!(request, { step, model: config.model }));
      if (replaced) request = replaced;
    }
    const ctx = {
      model: config.model,
      signal: this.signal,
      headers: config.headers,
      generateId: config.generateId,
      outputMode: config.output?.mode,
      emit: (event: Event) => this.emit(event),
      fold: () => this.fold,
    };
    let attempt = await streamStep(ctx, request, config.context?.retriesRefusal);
    if (typeof attempt === 'object' && 'refused' in attempt) {
      // Once: the strategy again, sized by the refusal, then the same call.
      request = await config.context!.fit(request, { ...fit, refused: attempt.refused });
      attempt = await streamStep(ctx, request);
    }
    // Without holdRefusal a step is never refused.
    const response = attempt as Response | typeof ABORTED;
    if (response !== ABORTED) config.context?.observe(request, response);
    return response;
  }

  /** The calls the response asks this run to make, and structured output's call in tool mode. */
  callsOf(response: Response): { toolCalls: ToolCallPart[]; outputCall: ToolCallPart | undefined } {
    const calls = response.message.parts.filter((p): p is ToolCallPart => p.type === 'tool-call' && !p.providerExecuted);
    const outputCall = this.config.output?.mode === 'tool' ? calls.find((c) => c.name === OUTPUT_TOOL_NAME) : undefined;
    return { toolCalls: calls.filter((c) => c !== outputCall), outputCall };
  }

  /**
   * Phase 2, settle tool calls: run them in parallel, report them in call order; a failed
   * tool may halt the run (`onToolError`), a call that waits on someone pauses it.
   */
  async settleToolCalls(calls: ToolCallPart[], resume: ReadonlyMap<string, Resolution>): Promise<Halt | undefined> {
    const context: RunToolContext = { tools: this.tools, hooks: this.config.hooks, signal: this.signal, defaultTimeoutMs: this.config.toolTimeoutMs, messages: this.fold.messages };
    if (this.checkpoint) context.interrupted = this.checkpoint.interrupted;
    const running = calls.map((call) => runToolCall(call, context, resume.get(call.id)));
    for (const run of running) run.catch(() => {}); // each is awaited below, in order; one may fail before its turn
    let toolError: Halt | undefined;
    const waitingFor: PendingInput[] = [];
    // Each result goes out as soon as it and the calls before it are settled (call order kept): a result
    // sent is recorded by a server's run store, so a run continued elsewhere never runs that call again.
    for (const run of running) {
      const outcome = await raceAbort(run, this.signal);
      if (outcome === ABORTED) throw new Halt('cancelled');
      if (outcome.type === 'result') {
        this.emitResult(outcome);
        toolError ??= toolErrorHalt(this.config.onToolError, outcome);
        continue;
      }
      const { kind, toolCallId, name, input, question } = outcome.pending;
      const pending: PendingInput = { kind, toolCallId, name, input };
      if (question !== undefined) pending.question = question;
      waitingFor.push(pending);
      if (kind === 'approval') this.emit({ type: 'approval-requested', toolCallId: outcome.call.id, name: outcome.call.name, input: outcome.call.input });
      else if (kind === 'ask-user') this.emit({ type: 'ask-user', toolCallId: outcome.call.id, question: question ?? '' });
    }
    return toolError ?? this.pause(waitingFor);
  }

  /** Phase 3, pause: the run waits for these inputs (the pause becomes part of the thread, so a reload keeps it). */
  pause(waitingFor: PendingInput[]): Halt | undefined {
    if (waitingFor.length === 0) return undefined;
    this.emit({ type: 'run-paused', waitingFor });
    return pauseHalt(new Set<PendingKind>(waitingFor.map((p) => p.kind)));
  }

  /**
   * Phase 4, validate structured output: the object is in the text (native) or in the output
   * tool's input. Valid completes the run; invalid gets the model another try with the reason
   * (`RETRY`), until `maxRetries`.
   */
  async validateOutput(step: number, response: Response, outputCall: ToolCallPart | undefined): Promise<Halt | typeof RETRY> {
    const output = this.config.output!;
    const candidate = outputCall ? { ok: true as const, value: outputCall.input } : parseOutputText(textOf(response));
    const checked = candidate.ok ? await output.schema.validate(candidate.value) : candidate;
    if (outputCall) {
      this.emitResult({ type: 'result', call: outputCall, output: checked.ok ? 'Accepted.' : retryMessage(checked.message), isError: !checked.ok });
    }
    if (checked.ok) {
      this.emit({ type: 'object-delta', object: checked.value });
      return this.endStep(step, response, new Halt('completed'));
    }
    if (!outputCall) this.feedback.set(response.message.id, retryMessage(checked.message));
    this.finishStep(step, response);
    if (this.retries >= this.config.maxRetries) {
      return new Halt('error', { code: 'invalid_response', message: `The structured output did not match the schema: ${checked.message}` });
    }
    this.retries++;
    return RETRY;
  }

  /** Phase 5, decide whether to go on: an answer without tool calls completes; `haltWhen` may stop after any step. */
  async decideNext(response: Response, toolCalls: number): Promise<Halt | undefined> {
    const answered = answeredHalt(response, toolCalls);
    if (answered) return answered;
    const { haltWhen } = this.config;
    if (haltWhen && (await callHook('haltWhen', () => haltWhen(this.lastStep())))) return new Halt('halt-when');
    return undefined;
  }

  /**
   * The end: exactly one `chat-finish` (with the thread for callers in this process), given to
   * `onFinish` first; it goes out whatever happens, and a failing `onEvent` cannot stop it.
   */
  async finish(halt: Halt): Promise<void> {
    const { config } = this;
    let finish: ChatFinishEvent = { type: 'chat-finish', haltReason: halt.reason, usage: this.usage };
    if (halt.error) finish.error = halt.error;
    // The thread is for callers in this process; a server sends the events alone (they fold to it).
    const withThread = (event: ChatFinishEvent): ChatFinishEvent => {
      const out: ChatFinishEvent = { ...event, thread: createThread(config.threadId, reduceEvents(this.fold, event).messages, config.threadMetadata) };
      if (config.metadataChanged && config.threadMetadata) out.metadata = config.threadMetadata;
      return out;
    };
    finish = withThread(finish);
    if (config.hooks.onFinish) {
      try {
        await config.hooks.onFinish(toChatResult(addToCollect(this.current(), finish)));
      } catch (error) {
        finish = withThread({ type: 'chat-finish', haltReason: 'error', usage: this.usage, error: { code: 'unknown', message: new HookError('onFinish', error).message } });
      }
    }
    this.fold = reduceEvents(this.fold, finish);
    this.output(finish);
    try {
      config.hooks.onEvent?.(finish);
    } catch {
      // Already finishing: nothing left to report the failure to.
    }
  }

  private readonly warnOnce = (message: string): void => {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.emit({ type: 'warning', setting: 'tools', message });
  };

  /** A tool result; it opens a tool message only when the last message is not one already. */
  private emitResult(outcome: ResultOutcome): void {
    const event: Event = { type: 'tool-result', toolCallId: outcome.call.id, name: outcome.call.name, output: outcome.output };
    if (outcome.isError) event.isError = true;
    if (this.fold.messages[this.fold.messages.length - 1]?.role !== 'tool') event.messageId = this.config.generateId();
    this.emit(event);
  }

  private finishStep(step: number, response: Response | undefined, finishReason = response?.finishReason ?? 'cancelled'): void {
    const stepUsage = response?.usage ?? this.fold.usage;
    this.usage = addUsage(this.usage, stepUsage);
    this.emit({ type: 'step-finish', step, finishReason, usage: stepUsage });
  }

  /** Finishes the step, then stops with `halt`. */
  private endStep(step: number, response: Response | undefined, halt: Halt): Halt {
    this.finishStep(step, response, response ? undefined : 'cancelled');
    return halt;
  }

  private lastStep(): StepResult {
    return toChatResult(this.current()).steps.at(-1)!;
  }
}

async function callHook<T>(name: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new HookError(name, error);
  }
}

function textOf(response: Response): string {
  return response.message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}
