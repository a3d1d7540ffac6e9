/**
 * A chat's stored copy, kept across the tabs of an origin: loading it, saving the state (merged
 * with what other tabs saved, compare-and-set on the revision, a typed `storage` error that the
 * next save clears), hearing other tabs' saves and deletions (tab-sync.ts) and merging them in,
 * following a run another tab streams, and the Web Lock that makes two tabs' runs take turns.
 * `ChatStore` owns one and calls it at its phases: connect, a run's start and end, each publication.
 */
import { ParlanceError, type Message } from '@parlance/protocol';
import { cursorOf, runInput, settle, type ChatAction, type ChatState } from './chat-reducer.ts';
import { mergeThreads } from './merge.ts';
import { revisionTag, type ChatRecord, type PersistAdapter } from './persist.ts';
import { SavedCopy } from './saved-copy.ts';
import { announceThreadChange, onThreadChange } from './tab-sync.ts';
import { lockManager } from './web-locks.ts';

/**
 * What the chat store lends its persistence: its working state and the few actions it needs.
 *
 * @example
 * const attach: AttachPersistence = (host: PersistenceHost) => new ChatPersistence(host);
 */
export interface PersistenceHost {
  readonly state: ChatState;
  /** The chat's options this needs (`ChatOptions`' own, named here so the store and this do not import each other). */
  readonly options: { readonly persist?: PersistAdapter | undefined; readonly onError?: ((error: ParlanceError) => void) | undefined };
  dispatch(action: ChatAction): void;
  newId(): string;
  connected(): boolean;
  /** A run (or a wait for one) is in flight in this store. */
  inRun(): boolean;
  /** Follows the run the state now holds (another tab's). */
  follow(): void;
  /** Drops the connection to the run in flight (the chat was deleted). */
  dropRun(): void;
  fail(error: ParlanceError): void;
}

/**
 * What `ChatStore` calls at its phases (see `ChatPersistence`); the type is all the store imports,
 * so the code comes only with an adapter that brings it (`PersistAdapter.attach`).
 *
 * @example
 * const persistence: Persistence = attachChatPersistence(host);
 * await persistence.load();
 */
export interface Persistence {
  load(): Promise<void>;
  listen(): void;
  unlisten(): void;
  persisted(): Promise<void>;
  claims(): boolean;
  claim(messages: Message[], signal: AbortSignal): Promise<boolean>;
  runEnded(started: boolean): void;
  afterRun(): void;
  published(prev: ChatState, next: ChatState): void;
}

/**
 * How an adapter gives a chat store its persistence (`PersistAdapter.attach`).
 *
 * @example
 * const adapter: PersistAdapter = { load, save, attach: attachChatPersistence };
 */
export type AttachPersistence = (host: PersistenceHost) => Persistence;

/**
 * The chat side of persistence (this file) for a store: what `definePersistAdapter` and the built-in adapters attach.
 *
 * @example
 * const adapter: PersistAdapter = { load: (id) => db.get(id), save: (id, record) => db.put(id, record), attach: attachChatPersistence };
 */
export const attachChatPersistence: AttachPersistence = (host) => new ChatPersistence(host);

export class ChatPersistence implements Persistence {
  readonly #host: PersistenceHost;
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
  /** Releases the cross-tab lock this store holds while its run goes on (see `claim`). */
  #release: (() => void) | undefined;

  constructor(host: PersistenceHost) {
    this.#host = host;
  }

  /** Stops hearing other tabs. */
  unlisten(): void {
    this.#unlisten?.();
    this.#unlisten = undefined;
  }

  /** Whether a new run must first take the thread's cross-tab lock (`claim`). */
  claims(): boolean {
    return !!lockManager() && !!this.#saved() && !this.#readOnly;
  }

  /** After a run of this store (`started`: one it started, not one it followed) has ended or failed. */
  runEnded(started: boolean): void {
    if (!started) this.#watching = false;
    this.#unclaim();
  }

  /** After a run ended normally: what other tabs saved during it shows now. */
  afterRun(): void {
    if (!this.#missed) return;
    this.#missed = false;
    void this.#pull();
  }

  /** Resolves when the last persisted state has been written. */
  persisted = (): Promise<void> => this.#saving ?? Promise.resolve();

  /** After each publication: saves what changed (not a followed run's frames, nor another tab's copy merged in). */
  published(prev: ChatState, next: ChatState): void {
    if (this.#readOnly || this.#quiet || next.deleted || !this.#host.options.persist || !next.thread.id || next.status === 'loading') return;
    // A run another tab started is that tab's to save while it streams; this tab saves its end.
    if (this.#watching && next.status === 'streaming') return;
    if (prev.thread !== next.thread || prev.run?.lastEventId !== next.run?.lastEventId || prev.run?.runId !== next.run?.runId || prev.queue !== next.queue) this.#save();
  }

  #saved(): SavedCopy | undefined {
    const { persist } = this.#host.options;
    if (!persist) return undefined;
    if (this.#copy?.persist !== persist) this.#copy = new SavedCopy(persist, () => this.#host.newId());
    return this.#copy;
  }

  /** Loads the stored chat into the state (see ChatStore.connect). */
  async load(): Promise<void> {
    const copy = this.#saved();
    if (!copy || !this.#host.state.thread.id) return;
    const { persist } = copy;
    const id = this.#host.state.thread.id;
    let stored: unknown;
    try {
      stored = await persist.load(id);
      const record = copy.adopt(stored);
      if (record?.deleted) {
        this.#host.dispatch({ type: 'load' });
        this.#host.dispatch({ type: 'deleted' });
        return;
      }
      this.#host.dispatch({ type: 'load', ...(record ? { record } : {}) });
      copy.base = this.#host.state.thread;
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
      this.#host.dispatch({ type: 'load', persistError: { ...e.toJSON(), message: `${e.message}; ${note}` } });
      this.#host.fail(e);
    }
  }

  /** Hears other tabs (and other stores of this page) change this thread: re-reads it. */
  listen(): void {
    const id = this.#host.state.thread.id;
    if (this.#unlisten || !this.#host.connected() || !id || !this.#saved()) return;
    const heard = (threadId: string, deleted?: boolean) => {
      if (threadId !== this.#host.state.thread.id) return;
      // During a run only a deletion is read now; the rest when the run ends (the saves merge meanwhile).
      const status = this.#host.state.status;
      if (!deleted && (status === 'submitted' || status === 'streaming')) this.#missed = true;
      else void this.#pull();
    };
    // Storage events are the fallback where there is no BroadcastChannel (they fire per write, streaming included).
    const offs = [
      onThreadChange((change, from) => from !== this && heard(change.threadId, change.deleted)),
      typeof BroadcastChannel === 'function' ? undefined : this.#host.options.persist?.subscribe?.((threadId) => heard(threadId)),
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
    const id = this.#host.state.thread.id;
    if (!copy || !id || this.#readOnly || this.#host.state.status === 'loading' || this.#host.state.deleted) return;
    let record: ChatRecord | undefined;
    try {
      record = await copy.read(id);
    } catch {
      return;
    }
    if (record && id === this.#host.state.thread.id) this.#take(record, options.follow ?? true);
  }

  /** Merges a stored record (another tab's save) into the state; see `#sync`. */
  #take(record: ChatRecord, follow: boolean): void {
    const copy = this.#saved()!;
    if (record.deleted) {
      this.#deleted();
      return;
    }
    const s = settle(this.#host.state);
    if (s.status === 'submitted' || s.status === 'streaming') {
      this.#missed = true;
      return;
    }
    const merged = mergeThreads(copy.base, s.thread, record.thread);
    copy.base = record.thread;
    copy.held = revisionTag(record);
    this.#quiet = !merged.local;
    try {
      this.#host.dispatch({ type: 'merge', thread: merged.thread });
    } finally {
      this.#quiet = false;
    }
    const run = record.run;
    // Followed only when nothing but its own output comes after where it started (else its fold would drop what follows).
    const input = run && runInput(this.#host.state.thread.messages, run.after);
    const clear = input && this.#host.state.thread.messages.slice(input.length).every((m) => m.role !== 'user');
    if (follow && run && clear && !this.#host.inRun() && this.#host.connected() && !this.#host.state.run) {
      this.#watching = true;
      this.#host.dispatch({ type: 'load', record: { ...record, thread: this.#host.state.thread, queue: this.#host.state.queue, quarantined: this.#host.state.quarantined } });
      if (this.#host.state.run) this.#host.follow();
      else this.#watching = false;
    }
  }

  #deleted(): void {
    this.#host.dropRun();
    this.#watching = false;
    this.#host.dispatch({ type: 'deleted' });
  }

  /**
   * Before a run starts: takes this thread's cross-tab lock (Web Locks), held until the run has
   * ended and its thread is saved, so two tabs sending at once run one after the other. While
   * another tab holds it, the messages wait in `queue`; once it is free, the thread is re-read, so
   * the run starts from a thread holding the other tab's turn. Without Web Locks (or persistence)
   * it resolves at once. Resolves false when the store was disconnected while waiting.
   */
  async claim(messages: Message[], signal: AbortSignal): Promise<boolean> {
    const locks = lockManager()!;
    // Queued until the lock is held: `send()` waits for idle, and what waits shows as queued.
    for (const m of messages) if (!this.#host.state.queue.includes(m)) this.#host.dispatch({ type: 'queue', message: m });
    if (!this.#release) {
      // Its own root, as the save and revision locks: the adapters' lock names are `parlance:<prefix><id>`,
      // so `parlance:run:<id>` was the same lock as an adapter's with the prefix `run:` (a deadlock).
      const name = `parlance-run:${this.#host.state.thread.id}`;
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
      if (this.#release !== release || this.#host.inRun()) return;
      this.#release = undefined;
      release();
    });
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
      const id = this.#host.state.thread.id;
      try {
        const done = await copy.write(id, () => {
          const s = settle(this.#host.state);
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
        if (this.#host.state.persistError?.code === 'storage') this.#host.dispatch({ type: 'persist' });
      } catch (error) {
        const e = ParlanceError.from(error, 'storage');
        this.#host.dispatch({ type: 'persist', error: { ...e.toJSON(), code: 'storage', message: `This chat is not being saved: ${e.message}` } });
        this.#host.options.onError?.(e);
        return;
      }
    }
  }

}
