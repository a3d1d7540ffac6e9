/**
 * Persistence: a chat is stored as one plain-JSON record (the thread, plus the
 * cursor of a run still streaming so a reloaded page can resume it). Records are
 * versioned; older ones migrate on load, and a corrupt message is quarantined
 * (kept aside with its reason) instead of costing the whole thread.
 */
import { ParlanceError, createThread, parseThreadLenient, type FoldState, type Message, type QuarantinedMessage, type Thread } from '@parlance/protocol';

/**
 * The stored chat record's format version (`loadRecord` reads older ones).
 *
 * @example
 * const fresh = (stored as ChatRecord).version === RECORD_VERSION;
 */
export const RECORD_VERSION = 1;

/**
 * Where a streaming run stands: enough to resume it after a reload.
 *
 * @example
 * const { run } = loadRecord(stored);
 * if (run) await resumeRun({ api: '/api/chat' }, run.runId, run.lastEventId);
 */
export interface RunCursor {
  runId: string;
  /** The last `<runId>:<seq>` folded (the Last-Event-ID to resume from). */
  lastEventId?: string;
  /** The fold's bookkeeping (open blocks, usage) without its messages, which are the thread's. */
  fold: Omit<FoldState, 'messages'>;
}

/**
 * What a persistence adapter stores per thread: the thread, the run cursor (to resume), the queue, quarantined messages.
 *
 * @example
 * const record: ChatRecord = toRecord(thread, run, [], []);
 */
export interface ChatRecord {
  version: typeof RECORD_VERSION;
  thread: Thread;
  run?: RunCursor;
  /** User messages not sent yet (sent while a response streamed). */
  queue?: Message[];
  quarantined?: QuarantinedMessage[];
  updatedAt?: string;
}

/**
 * A thread in a list: id, title (its first user message), when it was last saved.
 *
 * @example
 * threads.map((t: ThreadSummary) => `${t.title} (${t.updatedAt ?? 'never saved'})`);
 */
export interface ThreadSummary {
  id: string;
  title: string;
  updatedAt?: string;
}

/** Any store: `load` returns what `save` was given (or its JSON), or nothing. */
/**
 * An adapter that can also list what it holds (a `ThreadSource` for useThreads).
 *
 * @example
 * const threads = await localStorageAdapter().list();
 */
export type ListingAdapter = PersistAdapter & { list(): Promise<ThreadSummary[]> };

/**
 * Where a chat is kept between page loads: `load` and `save` by thread id (sync or async), optionally `list`.
 *
 * @example
 * const memory = new Map<string, ChatRecord>();
 * const adapter: PersistAdapter = { load: (id) => memory.get(id), save: (id, record) => void memory.set(id, record) };
 */
export interface PersistAdapter {
  load(id: string): unknown;
  save(id: string, record: ChatRecord): unknown;
  list?(): Promise<ThreadSummary[]>;
  /** Deletes a stored chat (a thread list's "delete"); deleting what is not there is no error. */
  remove?(id: string): unknown;
}

/** Drops quarantined messages from the cursor's indexes so the fold still points at the right parts. */
function shift(run: RunCursor, removed: number[]): RunCursor {
  if (!removed.length) return run;
  const at = (i: number) => (removed.includes(i) ? -1 : i - removed.filter((r) => r < i).length);
  const blocks: RunCursor['fold']['blocks'] = {};
  for (const [id, ref] of Object.entries(run.fold.blocks)) if (at(ref.message) >= 0) blocks[id] = { ...ref, message: at(ref.message) };
  return { ...run, fold: { ...run.fold, current: run.fold.current < 0 ? -1 : at(run.fold.current), blocks } };
}

/**
 * Reads a stored value (record, JSON text, or a bare thread from before records) into a checked record.
 *
 * @example
 * const { thread, run } = loadRecord(localStorage.getItem('parlance:thread:t1'));
 */
export function loadRecord(stored: unknown): ChatRecord {
  let value = stored;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (cause) {
      throw new ParlanceError('invalid_request', 'The stored chat is not JSON', { cause, retryable: false });
    }
  }
  if (typeof value !== 'object' || value === null) throw new ParlanceError('invalid_request', 'The stored chat is not an object', { retryable: false });
  // Version 0 stored the thread itself.
  let record = value as Partial<ChatRecord> & Record<string, unknown>;
  if (!('thread' in record)) record = { version: RECORD_VERSION, thread: record as unknown as Thread };
  if ((record.version ?? 0) > RECORD_VERSION) throw new ParlanceError('invalid_request', `Stored chat version ${record.version} is newer than this library`, { retryable: false });
  const { thread, quarantined } = parseThreadLenient(record.thread);
  const out: ChatRecord = { version: RECORD_VERSION, thread, quarantined: [...(record.quarantined ?? []), ...quarantined] };
  if (record.run?.runId && record.run.fold) out.run = shift(record.run, quarantined.flatMap((q) => (q.index >= 0 ? [q.index] : [])));
  if (Array.isArray(record.queue)) out.queue = parseThreadLenient(createThread('', record.queue)).thread.messages;
  if (record.updatedAt) out.updatedAt = record.updatedAt;
  return out;
}

/**
 * What `save` writes: JSON-safe (a tool call still streaming has no input yet; JSON would drop the key).
 *
 * @example
 * await adapter.save(thread.id, toRecord(thread, run, queue, quarantined));
 */
export function toRecord(thread: Thread, run: RunCursor | undefined, queue: Message[], quarantined: QuarantinedMessage[]): ChatRecord {
  const messages = run
    ? thread.messages.map((m) =>
        m.parts.some((p) => p.type === 'tool-call' && p.input === undefined)
          ? { ...m, parts: m.parts.map((p) => (p.type === 'tool-call' && p.input === undefined ? { ...p, input: null } : p)) }
          : m,
      )
    : thread.messages;
  const record: ChatRecord = { version: RECORD_VERSION, thread: { ...thread, messages }, updatedAt: new Date().toISOString() };
  if (run) record.run = run;
  if (queue.length) record.queue = queue;
  if (quarantined.length) record.quarantined = quarantined;
  return record;
}

export function summarize(id: string, stored: unknown): ThreadSummary {
  const record = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Partial<ChatRecord>;
  const first = record.thread?.messages?.find((m) => m.role === 'user');
  const text = first?.parts?.find((p) => p.type === 'text');
  const summary: ThreadSummary = { id, title: (text && 'text' in text ? text.text : '').slice(0, 80) };
  if (record.updatedAt) summary.updatedAt = record.updatedAt;
  return summary;
}

/**
 * Web Storage (localStorage by default), one JSON record per key `<prefix><threadId>`.
 *
 * @example
 * useChat({ api: '/api/chat', threadId: 'main', persist: localStorageAdapter({ prefix: 'myapp:thread:' }) });
 */
export function localStorageAdapter(options: { storage?: Storage; prefix?: string } = {}): ListingAdapter {
  const prefix = options.prefix ?? 'parlance:thread:';
  const storage = () => options.storage ?? globalThis.localStorage;
  return {
    load: (id) => storage().getItem(prefix + id),
    save: (id, record) => storage().setItem(prefix + id, JSON.stringify(record)),
    remove: (id) => storage().removeItem(prefix + id),
    async list() {
      const s = storage();
      const out: ThreadSummary[] = [];
      for (let i = 0; i < s.length; i++) {
        const key = s.key(i);
        if (!key?.startsWith(prefix)) continue;
        try {
          out.push(summarize(key.slice(prefix.length), s.getItem(key)));
        } catch {}
      }
      return out;
    },
  };
}

/**
 * IndexedDB: one object store, keyed by thread id (records are structured-cloned, not stringified).
 *
 * @example
 * const persist = indexedDbAdapter({ name: 'my-app' });
 * const chat = new ChatStore({ api: '/api/chat', threadId, persist });
 */
export function indexedDbAdapter(options: { name?: string; store?: string; indexedDB?: IDBFactory } = {}): ListingAdapter {
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
  return {
    load: async (id) => done((await store('readonly')).get(id)),
    save: async (id, record) => done((await store('readwrite')).put(record, id)),
    remove: async (id) => done((await store('readwrite')).delete(id)),
    async list() {
      const s = await store('readonly');
      const [keys, values] = await Promise.all([done(s.getAllKeys()), done(s.getAll())]);
      return keys.map((key, i) => summarize(String(key), values[i]));
    },
  };
}
