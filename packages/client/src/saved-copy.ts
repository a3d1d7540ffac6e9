/**
 * What a chat store knows of its stored record: the revision it last read or wrote (`tag`), that
 * record, and the thread both it and the store's state hold (`base`, the merge's common ancestor).
 * `write` is the save: merge the state with the stored copy, compare-and-set, and on a `conflict`
 * (another tab saved first) read again and retry, a bounded number of times.
 */
import { ParlanceError, type Message, type QuarantinedMessage, type Thread } from '@parlance/protocol';
import { mergeThreads } from './merge.ts';
import { withLock } from './web-locks.ts';
import { loadRecord, revisionTag, toRecord, type ChatRecord, type PersistAdapter, type RunCursor } from './persist.ts';

/** Saves that keep conflicting (tabs saving the same thread in a tight loop) give up after this many tries and report `storage`. */
export const MAX_CONFLICTS = 8;

/** What a save writes from the store's state. */
export interface SaveInput {
  thread: Thread;
  run: RunCursor | undefined;
  queue: Message[];
  quarantined: QuarantinedMessage[];
}

export class SavedCopy {
  /** The stored revision this copy is based on (`revisionTag`): what a save expects to replace. */
  tag = '';
  revision = 0;
  /** The revision the store's state holds (read, merged in, or written from it): `read` returns any other. */
  held = '';
  /** The thread the store's state and the stored record both contain. */
  base: Thread | undefined;
  /** The stored record as last read or written. */
  stored: ChatRecord | undefined;
  #writer: string | undefined;

  constructor(
    readonly persist: PersistAdapter,
    readonly newId: () => string,
  ) {}

  /** Takes a loaded value as the stored copy (throws a ParlanceError when it cannot be read). */
  adopt(value: unknown): ChatRecord | undefined {
    if (value == null) return undefined;
    const record = loadRecord(value);
    this.tag = revisionTag(value);
    this.revision = record.revision ?? 0;
    this.stored = record;
    return record;
  }

  /**
   * Reads the stored record; returns it when the state does not hold its revision (another tab
   * saved), else undefined. A copy older than the one this store last read or wrote (a read that
   * raced this store's own save, or an adapter whose reads lag) is not taken: merged with the base
   * it would read as "the other tab removed these messages". The conflict path after a failed
   * compare-and-set takes what is stored whatever it is (`conflict`).
   */
  async read(id: string, conflict = false): Promise<ChatRecord | undefined> {
    const value = await this.persist.load(id);
    if (revisionTag(value) === this.held) return undefined;
    if (!conflict && Number.parseInt(revisionTag(value), 10) < this.revision) return undefined;
    try {
      return this.adopt(value);
    } catch {
      // Unreadable (set aside on load): the next save writes over it.
      return undefined;
    }
  }

  /**
   * Saves `state` merged with the stored copy. Resolves `'deleted'` when the stored record is a
   * tombstone (nothing is written), `'merged'` when what was written holds more than `state` (another
   * tab's messages: take `stored` into the state), else `'saved'`; throws a ParlanceError (`storage` when the
   * adapter failed or saves kept conflicting).
   *
   * The stores of every tab save a thread one at a time (a Web Lock per thread, where there are Web
   * Locks): read, merge and compare-and-set are then one step for them, so a tab whose save waits
   * while another tab saves each streamed frame is not beaten to the write again and again until
   * `MAX_CONFLICTS` (only a writer outside the stores, e.g. `remove`, can make it retry).
   */
  write(id: string, state: () => SaveInput): Promise<'saved' | 'merged' | 'deleted'> {
    // Its own root: the adapters' lock names start with `parlance:` and a user's prefix follows.
    return withLock(`parlance-save:${id}`, () => this.#write(id, state));
  }

  async #write(id: string, state: () => SaveInput): Promise<'saved' | 'merged' | 'deleted'> {
    for (let attempt = 0; ; attempt++) {
      if (this.stored?.deleted) return 'deleted';
      const s = state();
      const merged = this.stored ? mergeThreads(this.base, s.thread, this.stored.thread) : undefined;
      const thread = merged?.thread ?? s.thread;
      const record = toRecord(thread, s.run, s.queue, s.quarantined);
      record.revision = this.revision + 1;
      record.writer = this.#writer ??= this.newId();
      try {
        await this.persist.save(id, record, this.tag);
      } catch (error) {
        const e = ParlanceError.from(error);
        if (e.code !== 'conflict') throw e.code === 'storage' ? e : new ParlanceError('storage', e.message, { retryable: true, cause: error });
        if (attempt + 1 >= MAX_CONFLICTS) throw new ParlanceError('storage', `Thread ${id} kept being saved elsewhere; not saved after ${MAX_CONFLICTS} tries`, { retryable: true });
        await this.read(id, true);
        continue;
      }
      this.tag = revisionTag(record);
      this.revision = record.revision;
      this.stored = record;
      // What the other copy brought and the state lacks (another tab's messages while this one streams) stays "theirs" for the next merge.
      if (merged?.remote) return 'merged';
      this.base = thread;
      this.held = this.tag;
      return 'saved';
    }
  }
}
