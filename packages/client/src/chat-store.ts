/**
 * ChatStore: a framework-free chat over the Parlance server protocol. State changes
 * through one reducer (chat-reducer.ts); streaming deltas are published at most once
 * per animation frame (store.ts); each message can be subscribed to on its own, so
 * a list re-renders only the message that changed. Options are read at call time.
 */
import { ParlanceError, createThread, forkAt, siblingsOf, switchBranch, type Message, type ModelEntry, type Part, type Siblings, type Thread } from '@parlance/protocol';
import type { AttachPersistence, Persistence, PersistenceHost } from './chat-persistence.ts';
import { chatReducer, initialChatState, runInput, settle, type ChatAction, type ChatState } from './chat-reducer.ts';
import { attachmentList, attachmentParts, checkAttachments, DEFAULT_MAX_INLINE_BYTES, DEFAULT_MAX_UPLOAD_BYTES, type Attachments } from './attachments.ts';
import type { PersistAdapter } from './persist.ts';
import { noPersistence, unattachedPersistence } from './no-persistence.ts';
import { emitRunFinish } from './run-events.ts';
import { readSse, wireOfResponse } from './sse.ts';
import { Store, type Listener } from './store.ts';
import { cancelRun, fetchModels, postChat, resumeRun, type ResumeInput, type TransportOptions } from './transport.ts';

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
  /**
   * What the chosen model reads (`ModelCapabilities.input`), to check attachments before upload.
   * Default: the `model`'s entry in `GET {api}/models` (read once); not checked when unknown.
   */
  modelInput?: string[];
  /** Attachments larger than this are refused before upload (default `DEFAULT_MAX_UPLOAD_BYTES`, 20 MiB). */
  maxFileBytes?: number;
  /** With no file store on the server, attachments up to this size go inline as base64 (default `DEFAULT_MAX_INLINE_BYTES`, 256 KiB). */
  maxInlineFileBytes?: number;
  onFinish?: (info: { thread: Thread; haltReason: ChatState['haltReason']; usage: ChatState['usage'] }) => void;
  onError?: (error: ParlanceError) => void;
}

/**
 * A message to send with attachments: its text and files (`File`, `Blob`, a `FileList`, URLs).
 *
 * @example
 * await chat.send({ text: 'What is in this photo?', files: input.files! } satisfies Compose);
 */
export interface Compose {
  text?: string;
  files?: Attachments;
}

/**
 * An edit of a user message with attachments: `text` replaces the message's text (left out: the
 * text is kept), `files` are new attachments (checked and uploaded as by `send`), added after the
 * message's own files, which are kept unless `keepFiles` is false.
 *
 * @example
 * await chat.edit(messageId, { text: 'And this one?', files: [photo], keepFiles: false } satisfies EditInput); // replaces the files
 */
export interface EditInput extends Compose {
  /** Keep the message's own files (default true). */
  keepFiles?: boolean;
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
  /**
   * The stored copy across tabs: load, save, sync, the run lock (chat-persistence.ts), made on first
   * use by the adapter that brings it (`persist.attach`): the store ships none of that code itself.
   */
  #persistence: Persistence | undefined;
  readonly #host: PersistenceHost;
  #messageListeners = new Map<string, Set<Listener>>();
  /** Messages by id, for the last thread looked up (rebuilt once per publication that changed the thread, never per delta). */
  #index: [Message[], Map<string, Message>] = [[], new Map()];
  #ids: [Message[], string[]] = [[], []];
  /** The server's models, read once for attachment checks; learned: the server has no file store. */
  #models: Promise<ModelEntry[] | undefined> | undefined;
  #noFileStore = false;
  #knownStore = false;

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
    const store = this;
    this.#host = {
      get state() {
        return store.state;
      },
      get options() {
        return store.options;
      },
      dispatch: (action) => this.#dispatch(action),
      newId: () => this.#id(),
      connected: () => this.#connected,
      inRun: () => !!this.#abort,
      follow: () => void this.#drive(),
      dropRun: () => {
        this.#abort?.abort();
        this.#abort = undefined;
      },
      fail: (error) => this.#fail(error),
    };
  }

  /** The persistence `options.persist` brings (none without it; a typed error for an adapter that brings none). */
  get #stored(): Persistence {
    if (this.#persistence) return this.#persistence;
    const { persist } = this.options;
    if (!persist) return noPersistence;
    const attach = persist.attach as AttachPersistence | undefined;
    return (this.#persistence = attach ? attach(this.#host) : unattachedPersistence(this.#host));
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
    this.#loaded ??= this.#stored.load();
    void this.#loaded.then(() => {
      if (!this.#connected) return;
      this.#stored.listen();
      if (this.#abort) return;
      if (this.state.run && this.state.status === 'streaming') void this.#drive();
      else this.#continue();
    });
    return () => {
      this.#connected = false;
      this.#stored.unlisten();
      this.#abort?.abort();
      this.#abort = undefined;
    };
  };

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
  persisted = (): Promise<void> => this.#stored.persisted();

  /**
   * Sends a user message and resolves when the store is idle again. While a response streams the
   * message is queued (`queue`, shown at once) and sent when it ends (or, with mode 'interrupt',
   * after cancelling it). While the run is paused for input (`pending` is not empty) the message is
   * refused: the promise rejects with a ParlanceError of code 'run_paused' and nothing is sent or
   * saved; `sendBlocked` says so beforehand, so a UI can disable sending and keep the draft.
   */
  send = (input: string | Part[] | Message | Compose, options: { mode?: SendMode } = {}): Promise<void> => {
    const s = this.state;
    if (s.sendBlocked) return Promise.reject(new ParlanceError(s.sendBlocked.code, s.sendBlocked.message, { retryable: false }));
    if (typeof input === 'object' && !Array.isArray(input) && !('role' in input)) return this.#compose(input, options);
    const message: Message = typeof input === 'object' && 'role' in input ? input : this.#userMessage(input);
    if (busy(s) || s.pending.length) {
      this.#dispatch({ type: 'queue', message });
      if ((options.mode ?? this.options.sendMode) === 'interrupt') void this.stop();
    } else void this.#drive([...s.queue, message]);
    return this.idle();
  };

  /**
   * A message with attachments: each is checked (the model reads its type, its size is allowed)
   * before anything is uploaded, files are uploaded once each (`state.uploads` shows progress) and
   * sent as signed references, then the message is sent like any other. Rejects with a
   * ParlanceError `invalid_request` (status 415 or 413, `path` ['files', i]) for a refused file, or
   * the upload's error; nothing is sent then.
   */
  async #compose(input: Compose, options: { mode?: SendMode }): Promise<void> {
    const parts = await this.#attach(input.files);
    return this.send(input.text ? [{ type: 'text', text: input.text }, ...parts] : parts, options);
  }

  /** The file parts for attachments: checked, uploaded once each (or inline), as `send({ files })` does. */
  async #attach(attachments: Attachments | undefined): Promise<Part[]> {
    const o = this.options;
    const files = attachmentList(attachments);
    if (files.length === 0) return [];
    const described = checkAttachments(files, { input: o.modelInput ?? (await this.#modelInput()), model: o.model, maxFileBytes: o.maxFileBytes ?? DEFAULT_MAX_UPLOAD_BYTES });
    try {
      const uploaded = await attachmentParts(described, {
        ...o,
        maxInlineFileBytes: o.maxInlineFileBytes ?? DEFAULT_MAX_INLINE_BYTES,
        noFileStore: this.#noFileStore,
        knownStore: this.#knownStore,
        onProgress: (uploads) => this.#dispatch({ type: 'uploads', uploads }),
      });
      this.#noFileStore = uploaded.noFileStore;
      this.#knownStore ||= !uploaded.noFileStore && described.some((d) => d.blob);
      return uploaded.parts;
    } finally {
      this.#dispatch({ type: 'uploads', uploads: [] });
    }
  }

  /** The chosen model's input modalities from `GET /models` (undefined when it cannot be read or is not listed). */
  async #modelInput(): Promise<string[] | undefined> {
    this.#models ??= fetchModels(this.options).catch(() => undefined);
    const models = await this.#models;
    const entry = this.options.model === undefined ? models?.[0] : models?.find((m) => m.id === this.options.model);
    return entry?.capabilities?.input;
  }

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
   * Edits a user message: the edited message is sent as a new version of it, and the old message with
   * everything that followed it is kept as a sibling version. A string replaces the text and keeps
   * the message's files; `{ text, files, keepFiles }` (`EditInput`) also adds new attachments
   * (uploaded as by `send`) or, with `keepFiles: false`, drops the old ones; `Part[]` is the whole
   * new message. Rejects with a ParlanceError `busy` while a response streams, `invalid_request` for
   * a message that is not a user message in the chat, or a refused attachment (nothing is sent).
   */
  edit = async (messageId: string, input: string | Part[] | EditInput): Promise<void> => {
    // Checked again after the uploads (they take time): the message is still there, nothing streams.
    const find = (): Message => {
      const refused = this.#refuseWhileBusy('edit a message');
      if (refused) throw refused;
      const found = this.state.thread.messages.find((m) => m.id === messageId);
      if (found?.role !== 'user') throw new ParlanceError('invalid_request', `Message ${messageId} is not a user message in the chat`, { retryable: false });
      return found;
    };
    let parts = find().parts;
    if (Array.isArray(input)) parts = input;
    else {
      const { text, files, keepFiles }: EditInput = typeof input === 'string' ? { text: input } : input;
      const added = await this.#attach(files);
      const kept = parts.filter((p) => p.type !== 'text');
      parts = [...(text === undefined ? parts.filter((p) => p.type === 'text') : text ? [{ type: 'text' as const, text }] : []), ...(keepFiles === false ? [] : kept), ...added];
    }
    const { thread } = this.state;
    this.#responses.clear();
    this.#dispatch({ type: 'thread', thread: forkAt(thread, thread.messages.indexOf(find())) });
    void this.#drive([this.#userMessage(parts)]);
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
        this.#stored.listen();
        // Across tabs, a run waits for the thread's lock (no wait, and nothing async, without Web Locks).
        if (this.#stored.claims() && !(await this.#stored.claim(messages, abort.signal))) return;
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
          await readSse(
            response.body,
            (event, id) => {
              failures = 0;
              this.#dispatch({ type: 'event', event, id }, event.type !== 'chat-finish');
            },
            { wire: wireOfResponse(response) },
          );
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
      this.#stored.runEnded(!!messages);
    }
    if (abort.signal.aborted) return;
    // What other tabs saved during the run shows now.
    this.#stored.afterRun();
    const s = this.state;
    this.options.onFinish?.({ thread: s.thread, haltReason: s.haltReason, usage: s.usage });
    if (s.status === 'error' && s.error) this.options.onError?.(new ParlanceError(s.error.code, s.error.message, s.error));
    // After the save, so a thread list refetched on this signal sees the finished thread.
    void this.persisted().then(() => emitRunFinish({ threadId: s.thread.id, thread: s.thread, haltReason: s.haltReason ?? 'completed' }));
    this.#continue();
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
    this.#stored.published(prev, next);
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
