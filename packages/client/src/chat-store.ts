/**
 * ChatStore: a framework-free chat over the Parlance server protocol. State changes
 * through one reducer (chat-reducer.ts); streaming deltas are published at most once
 * per animation frame (store.ts); each message can be subscribed to on its own, so
 * a list re-renders only the message that changed. Options are read at call time.
 */
import { ParlanceError, createThread, forkAt, siblingsOf, switchBranch, type Message, type Part, type Siblings, type Thread } from '@parlance/protocol';
import { chatReducer, cursorOf, initialChatState, runInput, settle, type ChatAction, type ChatState } from './chat-reducer.ts';
import { revisionTag, type ChatRecord, type PersistAdapter } from './persist.ts';
import { mergeThreads } from './merge.ts';
import { emitRunFinish } from './run-events.ts';
import { SavedCopy } from './saved-copy.ts';
import { announceThreadChange, onThreadChange } from './tab-sync.ts';
import { lockManager } from './web-locks.ts';
import { readSse } from './sse.ts';
import { Store, type Listener } from './store.ts';
import { cancelRun, postChat, resumeRun, type ResumeInput, type TransportOptions } from './transport.ts';

/**
 * What `send` does while an answer streams: `queue` it (default) or `interrupt` (cancel the answer, then send).
 *
 * @example
 * useChat({ api: '/api/chat', sendMode: 'interrupt' satisfies SendMode });
 */
export type SendMode = 'queue' | 'interrupt';
/**
 * A tool that runs in the browser; what it returns (or throws) is sent back to the run.
 *
 * @example
 * const tools: Record<string, ClientTool> = { get_location: async () => ({ lat: 59.9, lon: 10.7 }) };
 */
export type ClientTool = (input: any, call: { toolCallId: string; name: string }) => unknown;

/**
 * What `ChatStore` (and `useChat`) take: where the server is (`api`, equal to the handler's `basePath`), the thread, persistence, client tools, model and options, callbacks.
 *
 * @example
 * const options: ChatOptions = { api: '/api/chat', model: 'openai:gpt-5-mini', persist: localStorageAdapter(), tools: { get_location: () => navigator.geolocation } };
 */
export interface ChatOptions extends TransportOptions {
  threadId?: string;
  initialThread?: Thread;
  persist?: PersistAdapter;
  tools?: Record<string, ClientTool>;
  model?: string;
  options?: Record<string, unknown>;
  /**
   * Sending while a response streams: wait for it (default; the message shows at once in `queue`)
   * or cancel it first. Either way the message is sent. Sending while the run is paused for input
   * is refused (see `send`).
   */
  sendMode?: SendMode;
  /** Reconnection attempts after a dropped stream before giving up (default 3). */
  maxRetries?: number;
  retryDelayMs?: number;
  generateId?: () => string;
  onFinish?: (info: { thread: Thread; haltReason: ChatState['haltReason']; usage: ChatState['usage'] }) => void;
  onError?: (error: ParlanceError) => void;
}

type Response_ = { toolResult?: { output: unknown; isError?: boolean }; approval?: { approved: boolean; reason?: string }; answer?: string };

const busy = (s: ChatState) =>
  s.status === 'loading' || s.status === 'submitted' || s.status === 'streaming' || (s.status === 'ready' && s.queue.length > 0 && !s.pending.length);

/**
 * A chat over the Parlance server, framework-free: send, stop, regenerate, retry, answers for a paused run, and resume after a dropped connection or a reload (with `persist`). Builds without randomness or the clock, so it can be created during render.
 *
 * @example
 * const chat = new ChatStore({ api: '/api/chat', persist: localStorageAdapter(), threadId: 'support' });
 * const disconnect = chat.connect();
 * chat.subscribe(() => render(chat.getSnapshot()));
 * await chat.send('Where is my order?');
 */
export class ChatStore extends Store<ChatState> {
  options: ChatOptions;
  #abort: AbortController | undefined;
  #loaded: Promise<void> | undefined;
  #connected = false;
  #cancelOnStart = false;
  #responses = new Map<string, Response_>();
  #running = new Set<string>();
  #saving: Promise<void> | undefined;
  #dirty = false;
  /** Set when the stored record is from a newer version of this library (or could not be set aside): it is never saved over. */
  #readOnly = false;
  /** The stored record as this store knows it (revision, merge base); made on first use. */
  #copy: SavedCopy | undefined;
  /** Stops listening to other tabs. */
  #unlisten: (() => void) | undefined;
  /** Reads of the stored record requested by other tabs' changes: one at a time, one more when asked meanwhile. */
  #pulling: Promise<void> | undefined;
  #pullAgain = false;
  /** Following a run another tab started: its progress is that tab's to save. */
  #watching = false;
  /** What the last announced save held (message count, run, queue): saves of streamed frames are not announced. */
  #news = '';
  /** Another tab saved while this one was in a run: re-read when it ends. */
  #missed = false;
  /** The publication being made applies the stored copy: nothing new to save. */
  #quiet = false;
  /** Releases the cross-tab lock this store holds while its run goes on (see #claim). */
  #release: (() => void) | undefined;
  #messageListeners = new Map<string, Set<Listener>>();
  /** Messages by id, for the last thread looked up (rebuilt once per publication that changed the thread, never per delta). */
  #index: [Message[], Map<string, Message>] = [[], new Map()];
  #ids: [Message[], string[]] = [[], []];

  /**
   * Reads no randomness and no clock: a store is built during render (and server prerender, where
   * Next.js rejects `crypto.randomUUID()` / `Date.now()`). A chat without `threadId` gets its id at
   * its first send; until then `thread.id` is `''`.
   */
  constructor(options: ChatOptions) {
    const thread = options.initialThread ?? createThread(options.threadId ?? '');
    // A chat with no id yet has nothing stored to load.
    super(initialChatState({ thread, status: options.persist && thread.id ? 'loading' : 'ready', pending: [], queue: [], quarantined: [] }));
    this.options = options;
  }

  setOptions(options: ChatOptions): void {
    this.options = options;
  }

  #id(): string {
    return (this.options.generateId ?? (() => crypto.randomUUID()))();
  }

  #dispatch(action: ChatAction, batch = false): void {
    this.set(chatReducer(this.state, action), batch);
  }

  /** Publication: the thread takes what the run folded since the last one (once per frame, not per delta). */
  protected override flush(): void {
    this.state = settle(this.state);
    super.flush();
  }

  /** Loads the persisted chat (once) and resumes a run that was streaming; returns a function that drops the connection (the run goes on server-side). */
  connect = (): (() => void) => {
    this.#connected = true;
    this.#loaded ??= this.#load();
    void this.#loaded.then(() => {
      if (!this.#connected) return;
      this.#listen();
      if (this.#abort) return;
      if (this.state.run && this.state.status === 'streaming') void this.#drive();
      else this.#continue();
    });
    return () => {
      this.#connected = false;
      this.#unlisten?.();
      this.#unlisten = undefined;
      this.#abort?.abort();
      this.#abort = undefined;
    };
  };

  #saved(): SavedCopy | undefined {
    const { persist } = this.options;
    if (!persist) return undefined;
    if (this.#copy?.persist !== persist) this.#copy = new SavedCopy(persist, () => this.#id());
    return this.#copy;
  }

  async #load(): Promise<void> {
    const copy = this.#saved();
    if (!copy || !this.state.thread.id) return;
    const { persist } = copy;
    const id = this.state.thread.id;
    let stored: unknown;
    try {
      stored = await persist.load(id);
      const record = copy.adopt(stored);
      if (record?.deleted) {
        this.#dispatch({ type: 'load' });
        this.#dispatch({ type: 'deleted' });
        return;
      }
      this.#dispatch({ type: 'load', ...(record ? { record } : {}) });
      copy.base = this.state.thread;
      copy.held = copy.tag;
    } catch (error) {
      const e = ParlanceError.from(error);
      // Whatever cannot be read (not JSON, a broken thread) is copied to a quarantine key first; then
      // the chat starts afresh and is saved again. A record from a newer version of this library is
      // never saved over (nor one that could not be set aside): an old tab left open after a deploy
      // must not wipe what the new version wrote; a reload on the new version reads it.
      const newer = e.path?.[0] === 'version';
      let keptAside = !newer && !!persist.quarantine;
      if (stored != null && !newer) await (async () => persist.quarantine?.(id, stored, e.toJSON()))().catch(() => (keptAside = false));
      this.#readOnly = !keptAside;
      const note = this.#readOnly ? 'changes to this chat are not saved' : 'it was set aside and the chat starts afresh';
      this.#dispatch({ type: 'load', persistError: { ...e.toJSON(), message: `${e.message}; ${note}` } });
      this.#fail(e);
    }
  }

  /** Hears other tabs (and other stores of this page) change this thread: re-reads it. */
  #listen(): void {
    const id = this.state.thread.id;
    if (this.#unlisten || !this.#connected || !id || !this.#saved()) return;
    const heard = (threadId: string, deleted?: boolean) => {
      if (threadId !== this.state.thread.id) return;
      // During a run only a deletion is read now; the rest when the run ends (the saves merge meanwhile).
      const status = this.state.status;
      if (!deleted && (status === 'submitted' || status === 'streaming')) this.#missed = true;
      else void this.#pull();
    };
    // Storage events are the fallback where there is no BroadcastChannel (they fire per write, streaming included).
    const offs = [
      onThreadChange((change, from) => from !== this && heard(change.threadId, change.deleted)),
      typeof BroadcastChannel === 'function' ? undefined : this.options.persist?.subscribe?.((threadId) => heard(threadId)),
    ];
    this.#unlisten = () => {
      for (const off of offs) off?.();
    };
  }

  /** Re-reads the stored record after another tab changed it (one read at a time). */
  #pull(): Promise<void> {
    if (this.#pulling) {
      this.#pullAgain = true;
      return this.#pulling;
    }
    const pulling = (async () => {
      do {
        this.#pullAgain = false;
        await this.#sync();
      } while (this.#pullAgain);
    })().finally(() => {
      if (this.#pulling === pulling) this.#pulling = undefined;
    });
    return (this.#pulling = pulling);
  }

  /**
   * Takes in what another tab saved: merged into the state when this store is not in a run (during
   * one, the next save merges it; the state shows it when the run ends), and a run that tab is
   * streaming is followed here too, as a reload would resume it. A deletion stops everything.
   */
  async #sync(options: { follow?: boolean } = {}): Promise<void> {
    const copy = this.#saved();
    const id = this.state.thread.id;
    if (!copy || !id || this.#readOnly || this.state.status === 'loading' || this.state.deleted) return;
    let record: ChatRecord | undefined;
    try {
      record = await copy.read(id);
    } catch {
      return;
    }
    if (record && id === this.state.thread.id) this.#take(record, options.follow ?? true);
  }

  /** Merges a stored record (another tab's save) into the state; see `#sync`. */
  #take(record: ChatRecord, follow: boolean): void {
    const copy = this.#saved()!;
    if (record.deleted) {
      this.#deleted();
      return;
    }
    const s = settle(this.state);
    if (s.status === 'submitted' || s.status === 'streaming') {
      this.#missed = true;
      return;
    }
    const merged = mergeThreads(copy.base, s.thread, record.thread);
    copy.base = record.thread;
    copy.held = revisionTag(record);
    this.#quiet = !merged.local;
    try {
      this.#dispatch({ type: 'merge', thread: merged.thread });
    } finally {
      this.#quiet = false;
    }
    const run = record.run;
    // Followed only when nothing but its own output comes after where it started (else its fold would drop what follows).
    const input = run && runInput(this.state.thread.messages, run.after);
    const clear = input && this.state.thread.messages.slice(input.length).every((m) => m.role !== 'user');
    if (follow && run && clear && !this.#abort && this.#connected && !this.state.run) {
      this.#watching = true;
      this.#dispatch({ type: 'load', record: { ...record, thread: this.state.thread, queue: this.state.queue, quarantined: this.state.quarantined } });
      if (this.state.run) void this.#drive();
      else this.#watching = false;
    }
  }

  #deleted(): void {
    this.#abort?.abort();
    this.#abort = undefined;
    this.#watching = false;
    this.#dispatch({ type: 'deleted' });
  }

  /**
   * True when every input a paused run waits for has been answered but the resume is not sent yet.
   * That happens when `approve()` & co. are called while the run that paused is still closing its
   * stream (right after `send()` resolved): the resume is sent once that stream ends, so until then
   * the store is not idle, and `approve()` waits for the resumed run like `send()` waits for its own.
   */
  #resumeDue(): boolean {
    const s = this.state;
    return (s.status === 'ready' || s.status === 'error') && !s.run && s.pending.length > 0 && s.pending.every((p) => this.#responses.has(p.toolCallId));
  }

  /** Resolves when nothing is streaming or waiting to be sent, including a resume whose inputs are all answered (a run paused for input counts as idle). */
  idle = (): Promise<void> =>
    new Promise((resolve) => {
      const check = () => !busy(this.state) && !this.#resumeDue() && (stop(), resolve());
      const stop = this.subscribe(check);
      check();
    });

  /** Resolves when the last persisted state has been written. */
  persisted = (): Promise<void> => this.#saving ?? Promise.resolve();

  /**
   * Sends a user message and resolves when the store is idle again. While a response streams the
   * message is queued (`queue`, shown at once) and sent when it ends (or, with mode 'interrupt',
   * after cancelling it). While the run is paused for input (`pending` is not empty) the message is
   * refused: the promise rejects with a ParlanceError of code 'run_paused' and nothing is sent or
   * saved; `sendBlocked` says so beforehand, so a UI can disable sending and keep the draft.
   */
  send = (input: string | Part[] | Message, options: { mode?: SendMode } = {}): Promise<void> => {
    const s = this.state;
    if (s.sendBlocked) return Promise.reject(new ParlanceError(s.sendBlocked.code, s.sendBlocked.message, { retryable: false }));
    const message: Message = typeof input === 'object' && 'role' in input ? input : this.#userMessage(input);
    if (busy(s) || s.pending.length) {
      this.#dispatch({ type: 'queue', message });
      if ((options.mode ?? this.options.sendMode) === 'interrupt') void this.stop();
    } else void this.#drive([...s.queue, message]);
    return this.idle();
  };

  /** Cancels the run through the server's cancel route; what was received is kept. */
  stop = async (): Promise<void> => {
    const { run, status } = this.state;
    if (!run) {
      if (status === 'submitted') this.#cancelOnStart = true;
      return this.idle();
    }
    try {
      await cancelRun(this.options, run.runId);
      if (this.#abort) return this.idle();
    } catch {}
    // The server could not be told (or nothing is listening): stop here.
    this.#abort?.abort();
    this.#dispatch({ type: 'stopped' });
    this.#continue();
  };

  /** A change to the thread's versions is refused (`busy`) while a response streams or waits to be sent. */
  #refuseWhileBusy(what: string): ParlanceError | undefined {
    if (!busy(this.state) && !this.#resumeDue()) return undefined;
    return new ParlanceError('busy', `Cannot ${what} while a response is streaming; stop it or wait for idle() first`, { retryable: false });
  }

  #userMessage(input: string | Part[]): Message {
    return { id: this.#id(), role: 'user', parts: typeof input === 'string' ? [{ type: 'text', text: input }] : input, createdAt: new Date().toISOString() };
  }

  /**
   * Asks again for an answer (the last one, or the one `messageId` belongs to). The old answer is kept
   * as a sibling version (`siblings()` counts it, `switchBranch` brings it back). Rejects with a
   * ParlanceError `busy` while a response streams.
   */
  regenerate = (messageId?: string): Promise<void> => {
    const refused = this.#refuseWhileBusy('regenerate');
    if (refused) return Promise.reject(refused);
    const { thread } = this.state;
    const messages = thread.messages;
    let at = messageId === undefined ? messages.length - 1 : messages.findIndex((m) => m.id === messageId);
    if (messageId !== undefined && at < 0) return Promise.reject(new ParlanceError('invalid_request', `Message ${messageId} is not in the chat`, { retryable: false }));
    // The answer starts right after the user message it answers.
    while (at >= 0 && messages[at]!.role !== 'user') at--;
    this.#responses.clear();
    this.#dispatch({ type: 'thread', thread: forkAt(thread, at + 1) });
    void this.#drive([]);
    return this.idle();
  };

  /**
   * Edits a user message: the edited text is sent as a new version of it, and the old message with
   * everything that followed it is kept as a sibling version. Rejects with a ParlanceError `busy`
   * while a response streams, `invalid_request` for a message that is not a user message in the chat.
   */
  edit = (messageId: string, input: string | Part[]): Promise<void> => {
    const refused = this.#refuseWhileBusy('edit a message');
    if (refused) return Promise.reject(refused);
    const { thread } = this.state;
    const at = thread.messages.findIndex((m) => m.id === messageId);
    if (thread.messages[at]?.role !== 'user') return Promise.reject(new ParlanceError('invalid_request', `Message ${messageId} is not a user message in the chat`, { retryable: false }));
    this.#responses.clear();
    this.#dispatch({ type: 'thread', thread: forkAt(thread, at) });
    void this.#drive([this.#userMessage(input)]);
    return this.idle();
  };

  /**
   * Shows version `index` (0-based) of the message `messageId` (the `‹ ›` arrows): the active path
   * changes, nothing is sent. Throws a ParlanceError `busy` while a response streams, and
   * `invalid_request` for a message not shown or a version it does not have.
   */
  switchBranch = (messageId: string, index: number): void => {
    const refused = this.#refuseWhileBusy('switch versions');
    if (refused) throw refused;
    this.#responses.clear();
    this.#dispatch({ type: 'thread', thread: switchBranch(this.state.thread, messageId, index) });
  };

  /** Which version of its siblings a shown message is, e.g. `{ index: 0, count: 3 }` for "1/3". */
  siblings = (messageId: string): Siblings => siblingsOf(this.state.thread, messageId);

  /**
   * After an error: resumes the run if it is still known, else asks again: the failed answer (an
   * assistant message with an error and nothing in it) is dropped and the thread (and queue) sent again.
   * A run the server answered `not_found` or `run_expired` for is not resumed: what it had streamed
   * is dropped and a fresh run starts from the thread it was started on.
   */
  retry = (): Promise<void> => {
    const s = this.state;
    if (s.status !== 'error' && s.status !== 'ready') return this.idle();
    // A run the server no longer has (`not_found`, `run_expired`) cannot be resumed: the thread is
    // taken back to what the run started from and sent again as a fresh run.
    const vanished = s.run && (s.error?.code === 'not_found' || s.error?.code === 'run_expired');
    if (s.run && !vanished) {
      this.#dispatch({ type: 'run' });
      void this.#drive();
      return this.idle();
    }
    const input = s.run && runInput(s.thread.messages, s.run.after);
    const messages = input ?? s.thread.messages;
    let end = messages.length;
    while (end > 0 && messages[end - 1]!.role === 'assistant' && messages[end - 1]!.error && !messages[end - 1]!.parts.length) end--;
    if (end < s.thread.messages.length || s.run) this.#dispatch({ type: 'thread', thread: { ...s.thread, messages: messages.slice(0, end) } });
    void this.#drive([...s.queue]);
    return this.idle();
  };

  submitToolResult = (toolCallId: string, output: unknown, isError?: boolean): Promise<void> =>
    this.#respond(toolCallId, { toolResult: isError ? { output, isError } : { output } });
  approve = (toolCallId: string, reason?: string): Promise<void> => this.#respond(toolCallId, { approval: { approved: true, ...(reason ? { reason } : {}) } });
  deny = (toolCallId: string, reason?: string): Promise<void> => this.#respond(toolCallId, { approval: { approved: false, ...(reason ? { reason } : {}) } });
  answer = (toolCallId: string, answer: string): Promise<void> => this.#respond(toolCallId, { answer });

  /** Replaces the thread (e.g. one loaded elsewhere); drops the connection to a run in flight. */
  setThread = (thread: Thread): void => {
    this.#abort?.abort();
    this.#responses.clear();
    this.#dispatch({ type: 'thread', thread });
  };

  /**
   * Records one answer; once every pending input has one, the run resumes. The promise resolves when
   * that resumed run has ended (finished, paused again or failed), as `send()` does for its run; an
   * answer that still waits for others resolves at once (a paused run counts as idle).
   */
  #respond(toolCallId: string, response: Response_): Promise<void> {
    this.#responses.set(toolCallId, response);
    this.#continue();
    return this.idle();
  }

  /**
   * After a run: run client tools, continue once every pending input is answered, then send the queue.
   * After a failure only a paused run's answers go on (the queue waits for a retry or a new send).
   */
  #continue(): void {
    const s = this.state;
    if ((s.status !== 'ready' && !(s.status === 'error' && !s.run && s.pending.length)) || this.#abort) return;
    const waiting = s.pending.filter((p) => !this.#responses.has(p.toolCallId));
    for (const p of waiting) {
      const tool = p.kind === 'client-tool' ? this.options.tools?.[p.name] : undefined;
      if (!tool || this.#running.has(p.toolCallId)) continue;
      this.#running.add(p.toolCallId);
      Promise.resolve()
        .then(() => tool(p.input, { toolCallId: p.toolCallId, name: p.name }))
        .then(
          (output) => this.submitToolResult(p.toolCallId, output),
          (error) => this.submitToolResult(p.toolCallId, error instanceof Error ? error.message : String(error), true),
        )
        .finally(() => this.#running.delete(p.toolCallId));
    }
    if (waiting.length) return;
    if (s.pending.length) {
      const resume: Required<ResumeInput> = { toolResults: [], approvals: [], answers: [] };
      for (const { toolCallId } of s.pending) {
        const r = this.#responses.get(toolCallId);
        // A call id the server listed twice (say an approval and a question) is answered once.
        if (!r) continue;
        this.#responses.delete(toolCallId);
        if (r.toolResult) resume.toolResults.push({ toolCallId, ...r.toolResult });
        if (r.approval) resume.approvals.push({ toolCallId, ...r.approval });
        if (r.answer !== undefined) resume.answers.push({ toolCallId, answer: r.answer });
      }
      void this.#drive([], resume);
    } else if (s.queue.length && s.status === 'ready') void this.#drive([...s.queue]);
  }

  /** Starts a run (`messages` given) or resumes the current one, and follows it to its end across dropped connections. */
  async #drive(messages?: Message[], resume?: ResumeInput): Promise<void> {
    const abort = (this.#abort = new AbortController());
    const o = this.options;
    try {
      let response: Response | undefined;
      if (messages) {
        if (!this.state.thread.id) this.#dispatch({ type: 'thread', thread: { ...this.state.thread, id: this.#id() } });
        this.#listen();
        // Across tabs, a run waits for the thread's lock (no wait, and nothing async, without Web Locks).
        if (lockManager() && this.#saved() && !this.#readOnly && !(await this.#claim(messages, abort.signal))) return;
        if (this.state.deleted) return;
        this.#dispatch({ type: 'submit', messages });
        // Only the active path goes to the server: the model never sees the other versions.
        const { branches: _, ...thread } = this.state.thread;
        const body = { thread, clientRequestId: this.#id(), ...(o.model ? { model: o.model } : {}), ...(o.options ? { options: o.options } : {}), ...(resume ? { resume } : {}) };
        const started = await postChat(o, body, abort.signal);
        if (!started.runId) throw new ParlanceError('invalid_response', 'The server did not name the run (X-Parlance-Run-Id)');
        this.#dispatch({ type: 'run', runId: started.runId });
        response = started.response;
        if (this.#cancelOnStart) {
          this.#cancelOnStart = false;
          void this.stop();
        }
      }
      const runId = this.state.run?.runId;
      let failures = 0;
      while (runId && this.state.run?.runId === runId && !abort.signal.aborted) {
        try {
          response ??= await resumeRun(this.options, runId, this.state.run.lastEventId, abort.signal);
          await readSse(response.body, (event, id) => {
            failures = 0;
            this.#dispatch({ type: 'event', event, id }, event.type !== 'chat-finish');
          });
          if (this.state.run?.runId !== runId) break;
          throw new ParlanceError('network', 'The connection closed before the run finished');
        } catch (error) {
          if (abort.signal.aborted) return;
          const e = ParlanceError.from(error, 'network');
          if (!e.retryable || ++failures > (this.options.maxRetries ?? 3)) throw e;
          response = undefined;
          await new Promise((r) => setTimeout(r, (this.options.retryDelayMs ?? 1000) * failures));
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) this.#fail(error);
      return;
    } finally {
      if (this.#abort === abort) this.#abort = undefined;
      if (!messages) this.#watching = false;
      this.#unclaim();
    }
    if (abort.signal.aborted) return;
    // What other tabs saved during the run shows now.
    if (this.#missed) (this.#missed = false), void this.#pull();
    const s = this.state;
    this.options.onFinish?.({ thread: s.thread, haltReason: s.haltReason, usage: s.usage });
    if (s.status === 'error' && s.error) this.options.onError?.(new ParlanceError(s.error.code, s.error.message, s.error));
    // After the save, so a thread list refetched on this signal sees the finished thread.
    void this.persisted().then(() => emitRunFinish({ threadId: s.thread.id, thread: s.thread, haltReason: s.haltReason ?? 'completed' }));
    this.#continue();
  }

  /**
   * Before a run starts: takes this thread's cross-tab lock (Web Locks), held until the run has
   * ended and its thread is saved, so two tabs sending at once run one after the other. While
   * another tab holds it, the messages wait in `queue`; once it is free, the thread is re-read, so
   * the run starts from a thread holding the other tab's turn. Without Web Locks (or persistence)
   * it resolves at once. Resolves false when the store was disconnected while waiting.
   */
  async #claim(messages: Message[], signal: AbortSignal): Promise<boolean> {
    const locks = lockManager()!;
    // Queued until the lock is held: `send()` waits for idle, and what waits shows as queued.
    for (const m of messages) if (!this.state.queue.includes(m)) this.#dispatch({ type: 'queue', message: m });
    if (!this.#release) {
      const name = `parlance:run:${this.state.thread.id}`;
      const held = await new Promise<boolean>((resolve) => {
        const hold = () => new Promise<void>((release) => ((this.#release = release), resolve(true)));
        locks
          .request(name, { ifAvailable: true }, (lock) => {
            if (lock) return hold();
            void locks.request(name, { signal }, hold).catch(() => resolve(false));
            return undefined;
          })
          .catch(() => resolve(false));
      });
      if (!held) return false;
    }
    await this.#sync({ follow: false });
    return !signal.aborted;
  }

  /** Lets the lock go once the run's thread is saved, unless another run of this store has started meanwhile. */
  #unclaim(): void {
    const release = this.#release;
    if (!release) return;
    void this.persisted().then(() => {
      if (this.#release !== release || this.#abort) return;
      this.#release = undefined;
      release();
    });
  }

  #fail(error: unknown): void {
    const e = ParlanceError.from(error);
    this.#dispatch({ type: 'fail', error: e.toJSON() });
    this.options.onError?.(e);
  }

  protected override published(prev: ChatState, next: ChatState): void {
    if (prev.thread.messages !== next.thread.messages && this.#messageListeners.size) {
      const before = new Map(prev.thread.messages.map((m) => [m.id, m]));
      for (const [id, listeners] of this.#messageListeners) if (before.get(id) !== this.getMessage(id)) for (const l of listeners) l();
    }
    if (this.#readOnly || this.#quiet || next.deleted || !this.options.persist || !next.thread.id || next.status === 'loading') return;
    // A run another tab started is that tab's to save while it streams; this tab saves its end.
    if (this.#watching && next.status === 'streaming') return;
    if (prev.thread !== next.thread || prev.run?.lastEventId !== next.run?.lastEventId || prev.run?.runId !== next.run?.runId || prev.queue !== next.queue) this.#save();
  }

  /**
   * Saves the latest state; saves requested while one is in flight coalesce into one more. A failed
   * save sets `persistError` (code `storage`) and the next change saves again; a save that
   * succeeds clears it. The flag is set before the loop runs and cleared in a `.finally` callback
   * (always asynchronous), so a save whose adapter throws synchronously cannot leave it stuck.
   */
  #save(): void {
    this.#dirty = true;
    if (this.#saving) return;
    const saving = this.#saveLoop().finally(() => {
      if (this.#saving === saving) this.#saving = undefined;
    });
    this.#saving = saving;
  }

  async #saveLoop(): Promise<void> {
    await undefined;
    const copy = this.#saved();
    while (this.#dirty && copy) {
      this.#dirty = false;
      const id = this.state.thread.id;
      try {
        const done = await copy.write(id, () => {
          const s = settle(this.state);
          return { thread: s.thread, run: s.run && cursorOf(s.run), queue: s.queue, quarantined: s.quarantined };
        });
        if (done === 'deleted') return this.#deleted();
        // The save took in another tab's messages: the state shows them too (or once its run ends).
        if (done === 'merged' && copy.stored) this.#take(copy.stored, false);
        // Other tabs hear of a new message, a run starting or ending, not of each streamed frame.
        const saved = copy.stored;
        const news = `${saved?.thread.messages.length} ${saved?.thread.messages.at(-1)?.id} ${saved?.run?.runId} ${saved?.queue?.length}`;
        if (news !== this.#news) announceThreadChange({ threadId: id, revision: copy.revision }, this);
        this.#news = news;
        if (this.state.persistError?.code === 'storage') this.#dispatch({ type: 'persist' });
      } catch (error) {
        const e = ParlanceError.from(error, 'storage');
        this.#dispatch({ type: 'persist', error: { ...e.toJSON(), code: 'storage', message: `This chat is not being saved: ${e.message}` } });
        this.options.onError?.(e);
        return;
      }
    }
  }

  #find(messages: Message[], id: string): Message | undefined {
    if (this.#index[0] !== messages) this.#index = [messages, new Map(messages.map((m) => [m.id, m]))];
    return this.#index[1].get(id);
  }

  getMessage = (id: string): Message | undefined => this.#find(this.getSnapshot().thread.messages, id);

  getPart = (id: string, index: number): Part | undefined => this.getMessage(id)?.parts[index];

  /** The ids of the thread's messages; the same array for as long as they do not change (streaming text does not change them). */
  getMessageIds = (): string[] => {
    const messages = this.getSnapshot().thread.messages;
    const [seen, ids] = this.#ids;
    if (seen === messages) return ids;
    const next = messages.map((m) => m.id);
    this.#ids = [messages, next.length === ids.length && next.every((id, i) => id === ids[i]) ? ids : next];
    return this.#ids[1];
  };

  /** Calls `listener` when the message with this id changes (and only then). */
  subscribeMessage = (id: string, listener: Listener): (() => void) => {
    let set = this.#messageListeners.get(id);
    if (!set) this.#messageListeners.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (!set.size) this.#messageListeners.delete(id);
    };
  };

  /** Calls `listener` when one part of a message changes. */
  subscribePart = (id: string, index: number, listener: Listener): (() => void) => {
    let last = this.getPart(id, index);
    return this.subscribeMessage(id, () => {
      const part = this.getPart(id, index);
      if (part !== last) (last = part), listener();
    });
  };
}
