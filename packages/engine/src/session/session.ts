/**
 * A chat session as plain JSON: the thread, where the run stands, what it waits
 * for, and the caller's decisions not yet sent. The engine (keys, models, tool
 * handlers) is passed to each call and never stored, so a session saved mid-approval
 * can be loaded in another process and resumed there.
 */
import { ParlanceError, createThread, parseThread, type HaltReason, type Thread } from '@parlance/protocol';
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
export type SessionStatus = 'idle' | 'awaiting-tools' | 'awaiting-approval' | 'awaiting-user' | 'completed' | 'error';

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
}

async function runChecked(engine: Engine, call: CallOptions & { thread: Thread }, trust: ThreadTrust | undefined, principal?: string): Promise<ChatResult> {
  if (!trust) return engine.chat(call);
  await trust.verifyThread(call.thread, { principal, ...(call.resume ? { resume: call.resume } : {}) });
  return collect(trust.signEvents(call.thread, engine.streamChat(call), { principal }));
}

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
    const { trust, principal, ...rest } = options;
    const call: CallOptions & { thread: Thread } = { ...rest, thread: this.state.thread };
    if (!isEmpty(this.state.decisions)) call.resume = this.state.decisions;
    return this.apply(await runChecked(engine, call, trust, principal));
  }

  /** Adds a user message and runs (with `trust`: verified and signed, as `continue`). */
  async send(engine: Engine, message: string | MessageInput, options: SessionRunOptions = {}): Promise<ChatResult> {
    const { trust, principal, ...rest } = options;
    const input: MessageInput = typeof message === 'string' ? { role: 'user', content: message } : message;
    const thread = this.state.thread;
    if (!trust) return this.apply(await engine.chat({ ...rest, thread, messages: [input] }));
    const added = threadFrom([input], thread.id).messages;
    return this.apply(await runChecked(engine, { ...rest, thread: { ...thread, messages: [...thread.messages, ...added] } }, trust, principal));
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
