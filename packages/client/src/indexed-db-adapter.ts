/**
 * The IndexedDB adapter. A save is one readwrite transaction (read the stored revision, compare,
 * put), so it is atomic across tabs, and a transaction that fails leaves the previous record as it
 * was: IndexedDB commits all of a transaction or none of it (see persist.ts for the contract).
 */
import { ParlanceError } from '@parlance/protocol';
import { keepAside, revisionTag, summarizeAll, tombstone, type AdapterOptions, type ChatRecord, type ListingAdapter } from './persist.ts';
import { announceThreadChange } from './tab-sync.ts';
import { attachChatPersistence } from './chat-persistence.ts';

const storageError = (message: string, cause?: unknown) =>
  new ParlanceError('storage', message, { retryable: true, ...(cause === undefined ? {} : { cause }) });

/**
 * IndexedDB: one object store, keyed by thread id (records are structured-cloned, not stringified).
 * Quarantined records sit in the same store under array keys `['quarantine', threadId, n]`, which
 * no thread id can equal (so no schema upgrade, which a tab left open on the old version would block).
 *
 * @example
 * const persist = indexedDbAdapter({ name: 'my-app', onUnreadable: (id, error) => console.warn(id, error.message) });
 * const chat = new ChatStore({ api: '/api/chat', threadId, persist });
 */
export function indexedDbAdapter(options: AdapterOptions & { name?: string; store?: string; indexedDB?: IDBFactory } = {}): ListingAdapter {
  const name = options.store ?? 'threads';
  let db: Promise<IDBDatabase> | undefined;
  const done = <T>(request: IDBRequest<T>) =>
    new Promise<T>((resolve, reject) => {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  const open = () =>
    (db ??= (() => {
      const request = (options.indexedDB ?? globalThis.indexedDB).open(options.name ?? 'parlance', 1);
      request.onupgradeneeded = () => request.result.createObjectStore(name);
      return done(request);
    })());
  const store = async (mode: IDBTransactionMode) => (await open()).transaction(name, mode).objectStore(name);

  /**
   * Reads the stored record and writes `next(stored)` in one transaction. Only IndexedDB callbacks
   * run inside it (awaiting anything else would let the transaction commit early).
   */
  const update = async (id: string, next: (stored: unknown) => ChatRecord | undefined) => {
    const tx = (await open()).transaction(name, 'readwrite');
    const s = tx.objectStore(name);
    return new Promise<void>((resolve, reject) => {
      let failure: unknown;
      const get = s.get(id);
      get.onsuccess = () => {
        try {
          const record = next(get.result);
          if (record) s.put(record, id);
        } catch (error) {
          failure = error;
          tx.abort();
        }
      };
      tx.oncomplete = () => resolve();
      tx.onabort = tx.onerror = () =>
        reject(failure ?? storageError(`The browser refused to save thread ${id} (${tx.error?.message ?? 'aborted'})`, tx.error));
    });
  };

  return {
    // The chat side of persistence comes with the adapter (ChatStore does not ship it).
    attach: attachChatPersistence,
    load: async (id) => done((await store('readonly')).get(id)),
    save: (id, record, expected) =>
      update(id, (stored) => {
        if (expected !== undefined && revisionTag(stored) !== expected)
          throw new ParlanceError('conflict', `Thread ${id} was saved elsewhere (revision ${revisionTag(stored) || 'none'}, expected ${expected || 'none'})`, { retryable: true });
        return record;
      }),
    remove: (id) =>
      update(id, (stored) => (stored == null || (stored as ChatRecord).deleted ? undefined : tombstone(id, stored))).then(() =>
        announceThreadChange({ threadId: id, deleted: true }),
      ),
    quarantine: keepAside(
      (id, n) => ['quarantine', id, n],
      async (key) => done((await store('readonly')).get(key)),
      async (key, entry) => done((await store('readwrite')).put(entry, key)),
    ),
    async list() {
      const s = await store('readonly');
      const [keys, values] = await Promise.all([done(s.getAllKeys()), done(s.getAll())]);
      const entries: [string, unknown][] = [];
      keys.forEach((key, i) => {
        if (typeof key === 'string') entries.push([key, values[i]]);
      });
      return summarizeAll(entries, options);
    },
  };
}
