/**
 * Persistence: a chat is stored as one plain-JSON record: the thread (which holds
 * everything a reload needs, a paused run's `pause` included), the cursor of a run
 * still streaming, and the messages queued to send. Nothing of the fold is stored:
 * a reloaded page refolds a streaming run from the server's events, so a change to
 * the fold never becomes a storage migration. Records are versioned; older ones
 * migrate on load, a corrupt message is quarantined (kept aside with its reason)
 * instead of costing the whole thread, and a record that cannot be read at all is
 * kept under a quarantine key and never overwritten.
 */
import { ParlanceError, createThread, parseThreadLenient, type ErrorPayload, type Message, type QuarantinedMessage, type Thread } from '@parlance/protocol';

/**
 * The stored chat record's format version (`loadRecord` reads older ones). Version 2: the run
 * cursor holds no fold state (version 1 stored the fold's bookkeeping).
 *
 * @example
 * const fresh = (stored as ChatRecord).version === RECORD_VERSION;
 */
export const RECORD_VERSION = 2;

/**
 * Where a streaming run stands: enough to resume it after a reload.
 *
 * @example
 * const { run } = loadRecord(stored);
 * if (run) await resumeRun({ api: '/api/chat' }, run.runId, run.lastEventId);
 */
export interface RunCursor {
  runId: string;
  /** The last `<runId>:<seq>` folded. */
  lastEventId?: string;
  /** The id of the last message the run was started with: what follows it is the run's output, refolded on resume. */
  after?: string;
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
  /**
   * Keeps a stored value that could not be loaded (as it was, with why) where `save` never writes.
   * Without it, a chat whose record could not be loaded is never saved over.
   */
  quarantine?(id: string, stored: unknown, reason: ErrorPayload): unknown;
}

/**
 * Options shared by the built-in adapters.
 *
 * @example
 * localStorageAdapter({ onUnreadable: (id, error) => console.warn(`chat ${id} skipped: ${error.message}`) });
 */
export interface AdapterOptions {
  /** Called for each stored record `list()` skips because it cannot be read. */
  onUnreadable?: (id: string, error: ParlanceError) => void;
}

const unreadable = (message: string, path?: (string | number)[], cause?: unknown) =>
  new ParlanceError('invalid_request', message, { retryable: false, ...(path ? { path } : {}), ...(cause === undefined ? {} : { cause }) });

function parseStored(stored: unknown): Record<string, unknown> {
  let value = stored;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (cause) {
      throw unreadable('The stored chat is not JSON', [], cause);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unreadable('The stored chat is not an object', []);
  return value as Record<string, unknown>;
}

/**
 * Reads a stored value (record, JSON text, or a bare thread from before records) into a checked
 * record. Version 1 stored the fold's bookkeeping with a streaming run; a run saved that way cannot
 * be refolded (where its output starts is not known), so it is dropped: the thread keeps the
 * partial answer as it was saved, and the user can regenerate it.
 *
 * @example
 * const { thread, run } = loadRecord(localStorage.getItem('parlance:thread:t1'));
 */
export function loadRecord(stored: unknown): ChatRecord {
  const value = parseStored(stored);
  // Version 0 stored the thread itself.
  const record = ('thread' in value ? value : { version: 0, thread: value }) as Partial<Omit<ChatRecord, 'version'>> & { version?: unknown };
  const version = record.version ?? 0;
  if (typeof version !== 'number' || version > RECORD_VERSION) throw unreadable(`Stored chat version ${String(version)} is newer than this library reads`, ['version']);
  let parsed: ReturnType<typeof parseThreadLenient>;
  try {
    parsed = parseThreadLenient(record.thread);
  } catch (error) {
    const e = ParlanceError.from(error);
    throw unreadable(`The stored chat's thread cannot be read: ${e.message}`, ['thread', ...(e.path ?? [])], e);
  }
  const { thread, quarantined } = parsed;
  const out: ChatRecord = { version: RECORD_VERSION, thread, quarantined: [...(Array.isArray(record.quarantined) ? record.quarantined : []), ...quarantined] };
  const run = record.run;
  if (version >= 2 && run && typeof run.runId === 'string') {
    const cursor: RunCursor = { runId: run.runId };
    if (typeof run.lastEventId === 'string') cursor.lastEventId = run.lastEventId;
    if (typeof run.after === 'string') cursor.after = run.after;
    out.run = cursor;
  }
  if (Array.isArray(record.queue)) out.queue = parseThreadLenient(createThread('', record.queue)).thread.messages;
  if (typeof record.updatedAt === 'string') out.updatedAt = record.updatedAt;
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
  if (run) {
    // Only the cursor: the fold is rebuilt from the server's events on resume.
    const { fold, replay, ...cursor } = run as RunCursor & { fold?: unknown; replay?: unknown };
    record.run = cursor;
  }
  if (queue.length) record.queue = queue;
  if (quarantined.length) record.quarantined = quarantined;
  return record;
}

/** The list entry of a stored record; throws a ParlanceError when the record cannot be read. */
export function summarize(id: string, stored: unknown): ThreadSummary {
  const record = loadRecord(stored);
  const first = record.thread.messages.find((m) => m.role === 'user');
  const text = first?.parts.find((p) => p.type === 'text');
  const summary: ThreadSummary = { id, title: (text && 'text' in text ? text.text : '').slice(0, 80) };
  if (record.updatedAt) summary.updatedAt = record.updatedAt;
  return summary;
}

/** Lists what can be read; each record that cannot is skipped and reported. */
function summarizeAll(entries: [string, unknown][], options: AdapterOptions): ThreadSummary[] {
  const out: ThreadSummary[] = [];
  for (const [id, stored] of entries) {
    try {
      out.push(summarize(id, stored));
    } catch (error) {
      options.onUnreadable?.(id, ParlanceError.from(error));
    }
  }
  return out;
}

/**
 * What a quarantine key holds: the value as it was stored, why it was set aside, and when.
 *
 * @example
 * const kept = JSON.parse(localStorage.getItem('parlance:quarantine:t1') ?? 'null') as QuarantinedRecord | null;
 */
export interface QuarantinedRecord {
  id: string;
  stored: unknown;
  reason: ErrorPayload;
  at: string;
}

/** `quarantine` over numbered keys: the first free one is written; an earlier copy is never overwritten, nor copied twice. */
function keepAside<K>(
  key: (id: string, n: number) => K,
  get: (key: K) => unknown,
  put: (key: K, entry: QuarantinedRecord) => unknown,
): NonNullable<PersistAdapter['quarantine']> {
  return async (id, stored, reason) => {
    for (let n = 1; ; n++) {
      const existing = (await get(key(id, n))) as QuarantinedRecord | null | undefined;
      if (existing == null) return put(key(id, n), { id, stored, reason, at: new Date().toISOString() });
      if (JSON.stringify(existing.stored) === JSON.stringify(stored)) return;
    }
  };
}

/**
 * Web Storage (localStorage by default), one JSON record per key `<prefix><threadId>`. A record
 * that cannot be loaded is copied to `<quarantinePrefix><threadId>` (then `...:2`, `...:3`: an
 * earlier copy is never overwritten; the same value is not copied twice).
 *
 * @example
 * useChat({ api: '/api/chat', threadId: 'main', persist: localStorageAdapter({ prefix: 'myapp:thread:' }) });
 */
export function localStorageAdapter(options: AdapterOptions & { storage?: Storage; prefix?: string; quarantinePrefix?: string } = {}): ListingAdapter {
  const prefix = options.prefix ?? 'parlance:thread:';
  const quarantinePrefix = options.quarantinePrefix ?? 'parlance:quarantine:';
  const storage = () => options.storage ?? globalThis.localStorage;
  return {
    load: (id) => storage().getItem(prefix + id),
    save: (id, record) => storage().setItem(prefix + id, JSON.stringify(record)),
    remove: (id) => storage().removeItem(prefix + id),
    quarantine: keepAside(
      (id, n) => quarantinePrefix + id + (n === 1 ? '' : `:${n}`),
      (key) => JSON.parse(storage().getItem(key) ?? 'null'),
      (key, entry) => storage().setItem(key, JSON.stringify(entry)),
    ),
    async list() {
      const s = storage();
      const entries: [string, unknown][] = [];
      for (let i = 0; i < s.length; i++) {
        const key = s.key(i);
        if (key?.startsWith(prefix) && !key.startsWith(quarantinePrefix)) entries.push([key.slice(prefix.length), s.getItem(key)]);
      }
      return summarizeAll(entries, options);
    },
  };
}

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
  return {
    load: async (id) => done((await store('readonly')).get(id)),
    save: async (id, record) => done((await store('readwrite')).put(record, id)),
    remove: async (id) => done((await store('readwrite')).delete(id)),
    quarantine: keepAside(
      (id, n) => ['quarantine', id, n],
      async (key) => done((await store('readonly')).get(key)),
      async (key, entry) => done((await store('readwrite')).put(entry, key)),
    ),
    async list() {
      const s = await store('readonly');
      const [keys, values] = await Promise.all([done(s.getAllKeys()), done(s.getAll())]);
      const entries: [string, unknown][] = [];
      keys.forEach((key, i) => typeof key === 'string' && entries.push([key, values[i]]));
      return summarizeAll(entries, options);
    },
  };
}
