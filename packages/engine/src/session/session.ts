/**
 * A chat session as plain JSON: the thread, where the run stands, what it waits
 * for, and the caller's decisions not yet sent. The engine (keys, models, tool
 * handlers) is passed to each call and never stored, so a session saved mid-approval
 * can be loaded in another process and resumed there.
 */
import { ParlanceError, createThread, parseThread, threadAfterRun, type Event, type HaltReason, type Thread } from '@parlance/protocol';
import { threadFrom, type Engine } from '../engine.ts';
import { collect, type ChatResult, type PendingCall } from '../loop/result.ts';
import type { ThreadTrust } from '../trust/thread-trust.ts';
import type { CallOptions, MessageInput, ResumeInput } from '../options.ts';

/**
 * 
 *
 * @example
 * if (session.status === 'awaiting-approval') showApprovals(session.pending);
 */
export type SessionStatus = 'idle' | 'running' | 'awaiting-tools' | 'awaiting-approval' | 'awaiting-user' | 'completed' | 'error';

/**
 * A run in progress, as its checkpoints recorded it: the thread and decisions it started from and
 * every event it produced so far (signed, with `trust`). A session saved with one was stopped mid-run
 * (its process crashed or was stopped); `resume()` goes on from there.
 *
 * @example
 * if (session.toJSON().run) await session.resume(engine);
 */
export interface SessionRun {
  thread: Thread;
  resume?: ResumeInput;
  events: Event[];
}

/**
 * The `ChatSession.toJSON()` format version (`fromJSON` checks it).
 *
 * @example
 * if (JSON.parse(saved).version !== SESSION_VERSION) discard(saved);
 */
export const SESSION_VERSION = 1;

/**
 * What `ChatSession.toJSON()` stores.
 *
 * @example
 * const session = ChatSession.fromJSON(JSON.parse(saved) as SessionState);
 */
export interface SessionState {
  version: typeof SESSION_VERSION;
  thread: Thread;
  status: SessionStatus;
  pending: PendingCall[];
  /** Results, approvals and answers recorded since the last run. */
  decisions: ResumeInput;
  haltReason?: HaltReason;
  error?: { code: string; message: string };
  /** The run in progress (status `running`), recorded at each checkpoint. */
  run?: SessionRun;
}

/**
 * Options of one session run: everything but the conversation, which the session owns.
 *
 * @example
 * await session.send(engine, 'Hi', { model: 'openai:gpt-5-mini', maxSteps: 3 });
 */
export type SessionCallOptions = Omit<CallOptions, 'messages' | 'thread' | 'prompt' | 'resume' | 'output'>;

function statusOf(haltReason: HaltReason): SessionStatus {
  switch (haltReason) {
    case 'approval':
      return 'awaiting-approval';
    case 'ask-user':
      return 'awaiting-user';
    case 'client-tool-calls':
      return 'awaiting-tools';
    case 'error':
    case 'tool-error':
      return 'error';
    case 'cancelled':
      return 'idle';
    default:
      return 'completed';
  }
}

/** A saved run in progress, checked: its thread parsed, its events a list. */
function runOf(raw: SessionRun): SessionRun {
  if (typeof raw !== 'object' || raw === null || !Array.isArray(raw.events)) throw new ParlanceError('invalid_request', 'A saved session run needs its events');
  const run: SessionRun = { thread: parseThread(raw.thread), events: raw.events };
  if (raw.resume) run.resume = raw.resume;
  return run;
}

/** The thread with its last assistant message marked as a turn that stopped (its calls are then not owed, see thread-trust). */
function stoppedTurn(thread: Thread): Thread {
  const messages = thread.messages.slice();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    if (!m.pause && !m.error) messages[i] = { ...m, error: { code: 'unknown', message: 'The run stopped here', retryable: true } };
    break;
  }
  return { ...thread, messages };
}

function isEmpty(decisions: ResumeInput): boolean {
  return !decisions.toolResults?.length && !decisions.approvals?.length && !decisions.answers?.length;
}

/**
 * Options of `continue` and `send`: the call options, and the trust boundary to verify and sign with.
 *
 * @example
 * await session.continue(engine, { trust: createThreadTrust({ secret }) });
 */
export interface SessionRunOptions extends SessionCallOptions {
  trust?: ThreadTrust;
  /** The id of the principal the session belongs to: signatures are issued to it and verified against it. */
  principal?: string;
  /**
   * Called at each checkpoint of the run (a model step's `finish`, each tool result, a step's end), with
   * the session holding the run so far: save `JSON.stringify(session)` here, and a process that stops
   * mid-run loses at most the step in flight (`resume()` goes on from the saved session). The run waits
   * for it: a tool call starts only after the checkpoint of the step that asked for it was saved.
   */
  onCheckpoint?: (session: ChatSession) => void | Promise<void>;
}

/** Events after which a session's run is checkpointed. */
const CHECKPOINTS: ReadonlySet<Event['type']> = new Set(['finish', 'tool-result', 'step-finish', 'run-paused']);

/**
 * A conversation kept between requests: its thread, what a paused run waits for, and `send` / `continue`; serializable with `toJSON` / `fromJSON`.
 *
 * @example
 * const session = ChatSession.create();
 * let result = await session.send(engine, 'Book a table for two');
 * if (result.haltReason === 'approval') result = await session.approve(session.pending[0]!.toolCallId).continue(engine);
 * save(JSON.stringify(session));
 */
export class ChatSession {
  private state: SessionState;

  private constructor(state: SessionState) {
    this.state = state;
  }

  static create(options: { id?: string; thread?: Thread } = {}): ChatSession {
    const thread = options.thread ?? createThread(options.id ?? crypto.randomUUID());
    return new ChatSession({ version: SESSION_VERSION, thread, status: 'idle', pending: [], decisions: {} });
  }

  /** Loads a saved session (a JSON string or the parsed value); the thread is validated. */
  static fromJSON(input: string | SessionState): ChatSession {
    const raw = (typeof input === 'string' ? JSON.parse(input) : input) as Partial<SessionState>;
    if (typeof raw !== 'object' || raw === null || raw.version !== SESSION_VERSION) {
      throw new ParlanceError('invalid_request', `Not a session of version ${SESSION_VERSION}`);
    }
    return new ChatSession({
      version: SESSION_VERSION,
      thread: parseThread(raw.thread),
      status: raw.status ?? 'idle',
      pending: raw.pending ?? [],
      decisions: raw.decisions ?? {},
      ...(raw.haltReason ? { haltReason: raw.haltReason } : {}),
      ...(raw.error ? { error: raw.error } : {}),
      ...(raw.run ? { run: runOf(raw.run) } : {}),
    });
  }

  toJSON(): SessionState {
    return structuredClone(this.state);
  }

  get thread(): Thread {
    return this.state.thread;
  }
  get status(): SessionStatus {
    return this.state.status;
  }
  get pending(): readonly PendingCall[] {
    return this.state.pending;
  }

  private owed(toolCallId: string, kinds: PendingCall['kind'][]): PendingCall {
    const call = this.state.pending.find((p) => p.toolCallId === toolCallId);
    if (!call || !kinds.includes(call.kind)) {
      throw new ParlanceError('invalid_request', `No pending ${kinds.join(' or ')} call "${toolCallId}" in this session`);
    }
    return call;
  }

  /** The result of a client tool (any pending call may be answered with a result). */
  submitToolResult(toolCallId: string, output: unknown, options: { isError?: boolean } = {}): this {
    this.owed(toolCallId, ['client-tool', 'approval', 'ask-user']);
    const entry = { toolCallId, output, ...(options.isError ? { isError: true } : {}) };
    this.state.decisions = { ...this.state.decisions, toolResults: [...(this.state.decisions.toolResults ?? []), entry] };
    return this;
  }

  approve(toolCallId: string): this {
    this.owed(toolCallId, ['approval']);
    this.state.decisions = { ...this.state.decisions, approvals: [...(this.state.decisions.approvals ?? []), { toolCallId, approved: true }] };
    return this;
  }

  deny(toolCallId: string, reason?: string): this {
    this.owed(toolCallId, ['approval']);
    const entry = reason === undefined ? { toolCallId, approved: false } : { toolCallId, approved: false, reason };
    this.state.decisions = { ...this.state.decisions, approvals: [...(this.state.decisions.approvals ?? []), entry] };
    return this;
  }

  answer(toolCallId: string, answer: string): this {
    this.owed(toolCallId, ['ask-user']);
    this.state.decisions = { ...this.state.decisions, answers: [...(this.state.decisions.answers ?? []), { toolCallId, answer }] };
    return this;
  }

  /**
   * Runs the engine from where the session stands, sending the recorded decisions. With `trust`,
   * the saved thread and the decisions are verified first (a session loaded from storage is as
   * untrusted as a thread from a browser) and what the run adds is signed.
   */
  async continue(engine: Engine, options: SessionRunOptions = {}): Promise<ChatResult> {
    const run: SessionRun = { thread: this.state.thread, events: [] };
    if (!isEmpty(this.state.decisions)) run.resume = this.state.decisions;
    return this.record(engine, run, options);
  }

  /** Adds a user message and runs (with `trust`: verified and signed, as `continue`). */
  async send(engine: Engine, message: string | MessageInput, options: SessionRunOptions = {}): Promise<ChatResult> {
    const input: MessageInput = typeof message === 'string' ? { role: 'user', content: message } : message;
    const thread = this.state.thread;
    const added = threadFrom([input], thread.id).messages;
    return this.record(engine, { thread: { ...thread, messages: [...thread.messages, ...added] }, events: [] }, options);
  }

  /**
   * Goes on with a run that stopped mid-way (a session saved at a checkpoint, status `running`), from its
   * last checkpoint: a model call it was making is made again, a tool call that may have begun runs again
   * only if its tool is `idempotent` (else it gets the result "interrupted: not run again"), finished
   * steps and recorded results are kept. With `trust`, the saved thread, decisions and every tool part
   * the recorded events added are verified first.
   */
  async resume(engine: Engine, options: SessionRunOptions = {}): Promise<ChatResult> {
    const run = this.state.run;
    if (!run) throw new ParlanceError('invalid_request', 'This session has no run to resume (it is not running)');
    return this.record(engine, run, options, true);
  }

  /** Runs `run` (verified first, unless it goes on from its own checkpoint), recording each checkpoint. */
  private async record(engine: Engine, run: SessionRun, options: SessionRunOptions, fromCheckpoint = false): Promise<ChatResult> {
    const { trust, principal, onCheckpoint, ...rest } = options;
    if (trust) {
      await trust.verifyThread(run.thread, { principal, ...(run.resume ? { resume: run.resume } : {}) });
      // A saved run is as untrusted as the thread: every tool part its events added must be signed. Its last
      // message's calls may be owed (the run stopped in its tool phase): checked as a stopped turn's.
      if (fromCheckpoint) await trust.verifyThread(stoppedTurn(threadAfterRun(run.thread, run.events)), { principal });
    }
    const call: CallOptions & { thread: Thread } = { ...rest, thread: run.thread };
    if (run.resume) call.resume = run.resume;
    if (run.events.length > 0) call.checkpoint = { events: run.events, reason: 'takeover' };
    this.state = { ...this.state, status: 'running', run };
    const events = engine.streamChat(call);
    // Signed from where the recorded events left the thread: the signatures of what follows cover the same positions.
    const signed = trust ? trust.signEvents(run.events.length > 0 ? threadAfterRun(run.thread, run.events) : run.thread, events, { principal }) : events;
    const session = this;
    async function* recorded(): AsyncGenerator<Event> {
      for await (const event of signed) {
        if (event.type !== 'chat-finish') run.events.push(event);
        if (onCheckpoint && CHECKPOINTS.has(event.type)) await onCheckpoint(session);
        yield event;
      }
    }
    return this.apply(await collect(recorded()));
  }

  private apply(result: ChatResult): ChatResult {
    // A run sees and returns the active path only; the thread's other versions (edits, regenerations) stay.
    const { branches } = this.state.thread;
    const next: SessionState = {
      version: SESSION_VERSION,
      thread: branches ? { ...result.thread, branches } : result.thread,
      status: statusOf(result.haltReason),
      pending: result.pending,
      decisions: {},
      haltReason: result.haltReason,
    };
    if (result.error) next.error = result.error;
    this.state = next;
    return result;
  }
}
