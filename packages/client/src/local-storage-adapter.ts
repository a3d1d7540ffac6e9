/**
 * The localStorage adapter. Each thread has two slots, `<prefix><id>` and `<slotPrefix><id>`: a
 * save writes the slot that does not hold the current record, reads it back, and only then drops
 * the old one, so a write that fails or is cut off (quota, a crash, a storage that writes half)
 * leaves the previous generation loadable. The read-compare-write runs under a Web Lock per thread,
 * so two tabs' saves cannot interleave, and reads first wait for this tab's copy of localStorage to
 * show the newest revision any tab saved (revision-marks.ts: Chromium updates each tab's copy late),
 * so the compare is against what was last written (see persist.ts for the contract).
 */
import { ParlanceError } from '@parlance/protocol';
import { keepAside, loadRecord, revisionTag, summarizeAll, tombstone, type AdapterOptions, type ChatRecord, type ListingAdapter } from './persist.ts';
import { announceThreadChange } from './tab-sync.ts';
import { revisionMarks } from './revision-marks.ts';
import { withLock } from './web-locks.ts';
import { attachChatPersistence } from './chat-persistence.ts';

/**
 * Options of `localStorageAdapter`.
 *
 * @example
 * localStorageAdapter({ prefix: 'myapp:thread:', storage: sessionStorage } satisfies LocalStorageAdapterOptions);
 */
export interface LocalStorageAdapterOptions extends AdapterOptions {
  storage?: Storage;
  /** Where each thread's record is kept: `<prefix><threadId>` (default `parlance:thread:`). */
  prefix?: string;
  /** The second slot, written while the first keeps the previous copy (default `<prefix>~2:`). */
  slotPrefix?: string;
  /** Where unreadable records are copied to (default `parlance:quarantine:`). */
  quarantinePrefix?: string;
}

const isTombstone = (stored: unknown) => {
  try {
    return loadRecord(stored).deleted === true;
  } catch {
    return false;
  }
};

const storageError = (message: string, cause?: unknown) =>
  new ParlanceError('storage', message, { retryable: true, ...(cause === undefined ? {} : { cause }) });

/**
 * Web Storage (localStorage by default), one JSON record per thread in one of two slots
 * (`<prefix><threadId>`, `<slotPrefix><threadId>`); a save never overwrites the current copy, and
 * loading falls back to the previous one when the newest cannot be read. A record that cannot be
 * loaded is copied to `<quarantinePrefix><threadId>` (then `...:2`, `...:3`: an earlier copy is
 * never overwritten; the same value is not copied twice). Space: up to two copies of a thread
 * while a save is under way, one after it; a deleted thread leaves a tombstone of about 150 bytes.
 *
 * @example
 * useChat({ api: '/api/chat', threadId: 'main', persist: localStorageAdapter({ prefix: 'myapp:thread:' }) });
 */
export function localStorageAdapter(options: LocalStorageAdapterOptions = {}): ListingAdapter {
  const prefix = options.prefix ?? 'parlance:thread:';
  const slotPrefix = options.slotPrefix ?? `${prefix}~2:`;
  const quarantinePrefix = options.quarantinePrefix ?? 'parlance:quarantine:';
  const storage = () => options.storage ?? globalThis.localStorage;
  const quarantine = keepAside(
    (id, n) => quarantinePrefix + id + (n === 1 ? '' : `:${n}`),
    (key) => JSON.parse(storage().getItem(key) ?? 'null'),
    (key, entry) => storage().setItem(key, JSON.stringify(entry)),
  );
  // What this adapter last wrote to each key, with its revision: a slot still holding it is not parsed again.
  const known = new Map<string, [text: string, tag: string]>();
  const tagOf = (key: string, text: string): string => {
    const k = known.get(key);
    if (k?.[0] === text) return k[1];
    const tag = revisionTag(text);
    known.set(key, [text, tag]);
    return tag;
  };
  const revision = (tag: string) => (tag === '' ? -1 : Number.parseInt(tag, 10));
  const marks = revisionMarks(prefix);
  /** Waits until this tab's copy shows the newest revision of `id` any tab saved (see revision-marks.ts). */
  const caughtUp = (id: string) => marks.caughtUp(id, () => revision(slots(id)[0]!.tag));

  /** Both slots of a thread, the current one (the readable one with the higher revision) first. */
  const slots = (id: string) => {
    const s = storage();
    const read = (key: string) => {
      const text = s.getItem(key);
      return { key, text, tag: text == null ? '' : tagOf(key, text) };
    };
    const [a, b] = [read(prefix + id), read(slotPrefix + id)];
    return revision(b.tag) > revision(a.tag) ? [b, a] : [a, b];
  };

  /** The newest readable slot; a slot that cannot be read (cut off mid-write) is set aside when the other one can. */
  const load = async (id: string) => {
    await caughtUp(id);
    const filled = slots(id).filter((slot) => slot.text != null);
    const broken: [string, ParlanceError][] = [];
    let good: string | undefined;
    for (const { text } of filled) {
      try {
        loadRecord(text);
        good ??= text!;
      } catch (error) {
        broken.push([text!, ParlanceError.from(error)]);
      }
    }
    // Nothing readable: the store gets it as it is, and sets it aside itself.
    if (good === undefined) return filled[0]?.text ?? null;
    for (const [text, error] of broken) await quarantine(id, text, error.toJSON());
    return good;
  };

  /** Writes `text` into the slot that is not current, checks it, then drops the old copy. */
  const write = (id: string, record: ChatRecord, expected: string | undefined) => {
    const s = storage();
    const [current, other] = slots(id) as [{ key: string; text: string | null; tag: string }, { key: string; text: string | null; tag: string }];
    if (expected !== undefined && current.tag !== expected) throw new ParlanceError('conflict', `Thread ${id} was saved elsewhere (revision ${current.tag || 'none'}, expected ${expected || 'none'})`, { retryable: true });
    const target = current.text == null ? current.key : other.key;
    const text = JSON.stringify(record);
    try {
      s.setItem(target, text);
    } catch (cause) {
      if (s.getItem(target) !== (target === other.key ? other.text : null)) s.removeItem(target);
      throw storageError(`The browser refused to save thread ${id} (${cause instanceof Error ? cause.message : String(cause)})`, cause);
    }
    if (s.getItem(target) !== text) {
      // Cut off: the previous copy is still in the other slot.
      s.removeItem(target);
      throw storageError(`Saving thread ${id} was cut off; the previous copy is kept`);
    }
    known.set(target, [text, revisionTag(record)]);
    const old = target === current.key ? other.key : current.key;
    s.removeItem(old);
    known.delete(old);
  };

  /** Under the thread's lock: waits for this tab's copy to catch up, writes, and marks the revision before the lock is let go. */
  const locked = (id: string, make: () => [ChatRecord, string | undefined] | undefined) =>
    withLock(`parlance:${prefix}${id}`, async () => {
      await caughtUp(id);
      const next = make();
      if (!next) return false;
      write(id, next[0], next[1]);
      await marks.mark(id, next[0].revision ?? 0);
      return true;
    });

  return {
    // The chat side of persistence comes with the adapter (ChatStore does not ship it).
    attach: attachChatPersistence,
    load,
    save: async (id, record, expected) => void (await locked(id, () => [record, expected])),
    remove: (id) =>
      locked(id, () => {
        const [current] = slots(id);
        return current?.text == null || isTombstone(current.text) ? undefined : [tombstone(id, current.text), undefined];
      }).then(() => announceThreadChange({ threadId: id, deleted: true })),
    quarantine,
    async list() {
      const s = storage();
      const ids = new Set<string>();
      for (let i = 0; i < s.length; i++) {
        const key = s.key(i);
        if (key == null || key.startsWith(quarantinePrefix)) continue;
        if (key.startsWith(slotPrefix)) ids.add(key.slice(slotPrefix.length));
        else if (key.startsWith(prefix)) ids.add(key.slice(prefix.length));
      }
      const entries: [string, unknown][] = [];
      for (const id of ids) {
        const stored = await load(id);
        if (stored != null) entries.push([id, stored]);
      }
      return summarizeAll(entries, options);
    },
    subscribe(listener) {
      const onStorage = (event: StorageEvent) => {
        const key = event.key;
        if (key?.startsWith(slotPrefix)) listener(key.slice(slotPrefix.length));
        else if (key?.startsWith(prefix) && !key.startsWith(quarantinePrefix)) listener(key.slice(prefix.length));
      };
      globalThis.addEventListener?.('storage', onStorage);
      return () => globalThis.removeEventListener?.('storage', onStorage);
    },
  };
}
