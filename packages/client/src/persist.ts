/**
 * Persistence: a chat is stored as one plain-JSON record: the thread (which holds
 * everything a reload needs, a paused run's `pause` included), the cursor of a run
 * still streaming, and the messages queued to send. Nothing of the fold is stored:
 * a reloaded page refolds a streaming run from the server's events, so a change to
 * the fold never becomes a storage migration. Records are versioned; older ones
 * migrate on load, a corrupt message is quarantined (kept aside with its reason)
 * instead of costing the whole thread, and a record that cannot be read at all is
 * kept under a quarantine key and never overwritten.
 *
 * Several tabs save one thread: each record carries a `revision` (and the `writer` that made it),
 * and an adapter's `save` is a compare-and-set on it, so a tab whose copy is stale gets a typed
 * `conflict`, re-reads, merges by message id (merge.ts) and saves again. Deleting leaves a
 * tombstone with a higher revision, which no stale save can write over.
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
  /** Counts saves of this thread (0 or absent: never saved); a save writes the one it was based on + 1. */
  revision?: number;
  /** Who wrote this revision (one random id per store), so two tabs that both wrote revision 5 differ. */
  writer?: string;
  /** A tombstone: the thread was deleted. Loading gives an empty thread; no save may write over it. */
  deleted?: true;
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
 * Where a chat is kept between page loads: `load` and `save` by thread id (sync or async), optionally
 * `list`; a custom adapter is made with `definePersistAdapter`, which attaches the chat side. The contract (checked by `adapterConformance` from `@parlance/client/conformance`, which
 * any adapter can run in its own tests):
 *
 * - `save(id, record, expected)` is a compare-and-set: it writes only when the stored record's
 *   `revisionTag` equals `expected` (`''` when nothing is stored), else it throws a ParlanceError
 *   `conflict` and writes nothing. Read, compare and write are one atomic step for every tab of
 *   the origin (one IndexedDB transaction; a Web Lock around localStorage).
 * - Once a save has resolved, a `load` in any tab returns that record or a newer one (the
 *   announcement of a save and the hand-off of a Web Lock can reach another tab first). IndexedDB
 *   reads the browser's one copy; Chromium's localStorage is a copy per tab that gets other tabs'
 *   writes late, so the localStorage adapter marks each revision it saves in a held Web Lock and
 *   waits for its copy to show the newest mark before it reads or compares (revision-marks.ts).
 * - A save never loses the last good copy: until the new record is completely written, `load`
 *   still returns the previous one (IndexedDB transactions are atomic; localStorage writes the
 *   other of two slots and checks it before dropping the old one). A failed save throws.
 * - `remove(id)` leaves a tombstone (`deleted: true`, a higher revision): `load` returns it, `list`
 *   skips it, and a save based on an older revision conflicts, so a stale tab cannot bring the
 *   thread back.
 *
 * An adapter that ignores `expected` still works in one tab; across tabs the last writer wins.
 *
 * @example
 * const memory = new Map<string, ChatRecord>();
 * const adapter: PersistAdapter = definePersistAdapter({
 *   load: (id) => memory.get(id),
 *   save: (id, record, expected) => {
 *     if (expected !== undefined && revisionTag(memory.get(id)) !== expected) throw new ParlanceError('conflict', 'Saved elsewhere first');
 *     memory.set(id, record);
 *   },
 *   remove: (id) => void memory.set(id, tombstone(id, memory.get(id))),
 * });
 */
export interface PersistAdapter {
  /** The newest complete stored value (a record, its JSON, or a bare thread), or null/undefined when there is none. */
  load(id: string): unknown;
  /** Writes `record` if the stored revision is still `expected` (see `revisionTag`); throws a ParlanceError `conflict` when it is not. */
  save(id: string, record: ChatRecord, expected?: string): unknown;
  list?(): Promise<ThreadSummary[]>;
  /** Deletes a stored chat (a thread list's "delete") by writing a tombstone; deleting what is not there is no error. */
  remove?(id: string): unknown;
  /** Calls `listener` with the id of a thread another tab changed (localStorage: `storage` events); returns the unsubscribe function. Stores also hear each other through a BroadcastChannel, so this is optional. */
  subscribe?(listener: (id: string) => void): () => void;
  /**
   * Keeps a stored value that could not be loaded (as it was, with why) where `save` never writes.
   * Without it, a chat whose record could not be loaded is never saved over.
   */
  quarantine?(id: string, stored: unknown, reason: ErrorPayload): unknown;
  /**
   * Gives a `ChatStore` the chat side of persistence: loading, saving merged with other tabs' saves,
   * hearing other tabs, the cross-tab run lock. `definePersistAdapter` sets it (the built-in adapters
   * have it). `ChatStore` ships none of that code itself, so an app that persists nothing does not
   * download it; a store given an adapter without it reports an `invalid_request` error and saves nothing.
   * Its type is `AttachPersistence` (chat-persistence.ts, which imports this file: named loosely here).
   */
  attach?: (host: never) => unknown;
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
  if (value.deleted === true) return stamp({ version: RECORD_VERSION, thread: createThread(''), deleted: true }, value);
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
  return stamp(out, value);
}

/** Copies what identifies a stored revision (when, which, by whom). */
function stamp(out: ChatRecord, value: Record<string, unknown>): ChatRecord {
  if (typeof value.updatedAt === 'string') out.updatedAt = value.updatedAt;
  if (typeof value.revision === 'number') out.revision = value.revision;
  if (typeof value.writer === 'string') out.writer = value.writer;
  return out;
}

/**
 * What identifies a stored value's revision, for the compare-and-set in `save`: `''` when nothing
 * is stored, else `<revision>.<writer>` (`'0.'` for a record from before revisions). A value that is
 * not JSON counts as nothing stored (it was set aside when it failed to load).
 *
 * @example
 * if (revisionTag(await db.get(id)) !== expected) throw new ParlanceError('conflict', 'Saved elsewhere first');
 */
export function revisionTag(stored: unknown): string {
  if (stored == null) return '';
  let value: Record<string, unknown>;
  try {
    value = parseStored(stored);
  } catch {
    return '';
  }
  return `${typeof value.revision === 'number' ? value.revision : 0}.${typeof value.writer === 'string' ? value.writer : ''}`;
}

/**
 * The record `remove` writes: a tombstone one revision above what is stored, so a stale save conflicts.
 *
 * @example
 * await db.put(tombstone(id, await db.get(id)), id);
 */
export function tombstone(id: string, stored: unknown): ChatRecord {
  let revision = 0;
  try {
    revision = loadRecord(stored).revision ?? 0;
  } catch {}
  return { version: RECORD_VERSION, thread: createThread(id), deleted: true, updatedAt: new Date().toISOString(), revision: revision + 1, writer: 'remove' };
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

/** The list entry of a stored record (undefined for a tombstone); throws a ParlanceError when the record cannot be read. */
export function summarize(id: string, stored: unknown): ThreadSummary | undefined {
  const record = loadRecord(stored);
  if (record.deleted) return undefined;
  const first = record.thread.messages.find((m) => m.role === 'user');
  const text = first?.parts.find((p) => p.type === 'text');
  const summary: ThreadSummary = { id, title: (text && 'text' in text ? text.text : '').slice(0, 80) };
  if (record.updatedAt) summary.updatedAt = record.updatedAt;
  return summary;
}

/** Lists what can be read; each record that cannot is skipped and reported. */
export function summarizeAll(entries: [string, unknown][], options: AdapterOptions): ThreadSummary[] {
  const out: ThreadSummary[] = [];
  for (const [id, stored] of entries) {
    try {
      const summary = summarize(id, stored);
      if (summary) out.push(summary);
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
export function keepAside<K>(
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

