/**
 * The runs of a Durable Object that runs them (`parlanceRunObject`): the memory store, with each
 * change also written to the object's storage, so that an object evicted or restarted mid-run
 * finds its runs again. The stored events are the runs' checkpoints, as in Redis (a model step is
 * done once its `finish` is stored, a tool call once its `tool-result` is): the object's alarm
 * claims a run nobody runs any more and goes on from them (`takeover.ts`).
 *
 * Readers never see an event that is not stored: a Durable Object's output gate holds every answer
 * until the writes made before it are durable, and each event is written as it is appended
 * (https://developers.cloudflare.com/durable-objects/api/storage-api/). Writes a run costs: one per
 * event, one when it is created, claimed, cancelled or finished, one for its recorded start.
 *
 * Storage layout: `r:<run>` its record, `e:<run>:<seq>` its events (JSON; one over `CHUNK` characters
 * is split in parts `e:<run>:<seq>#<i>`: a SQLite-backed object takes at most 2 MB per key and value),
 * `v:<key>` the values (`setValue`), `limits` the limits the Worker's store sent.
 */
import type { Event } from '@parlance/protocol';
import { createMemoryRunStore, type MemoryRunStore } from '../memory-run-store.ts';
import { type ClaimedRun, type NewRun, type RunLimits, runEndedError } from '../run-store.ts';

/**
 * The parts of a Durable Object's storage (`ctx.storage`) the run object uses.
 *
 * @example
 * const storage: RunObjectStorage = ctx.storage; // the DurableObjectState's storage
 */
export interface RunObjectStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list<T>(options: { prefix: string; startAfter?: string; limit?: number }): Promise<Map<string, T>>;
  setAlarm(scheduledTime: number): Promise<void>;
  getAlarm(): Promise<number | null>;
}

interface StoredRecord {
  id: string;
  requestKey: string;
  createdAt: number;
  status: 'running' | 'finished';
  owner?: string;
  cancelRequested?: boolean;
  finishedAt?: number;
}

interface StoredValue {
  value: string;
  until: number;
}

/** Characters of event JSON per storage value (at most 3 bytes each in UTF-8: under the 2 MB a key and value may take). */
const CHUNK = 512 * 1024;
/** Keys read or deleted per storage call (the KV API deletes at most 128 keys at once). */
const PAGE = 128;
const LIMITS = 'limits';
const runKey = (id: string) => `r:${id}`;
const eventsPrefix = (id: string) => `e:${id}:`;
const eventKey = (id: string, seq: number) => `${eventsPrefix(id)}${String(seq).padStart(10, '0')}`;

/**
 * The object's runs: a memory store whose changes are also stored, plus what its alarm needs.
 */
export interface StoredRunStore extends MemoryRunStore {
  /** Takes over a going run nobody runs in this instance (see `orphans`): its events, under a new owner. */
  claim(runId: string, owner: string): Promise<ClaimedRun | undefined>;
  /** The owner token of a going run. */
  ownerOf(runId: string): string | undefined;
  /** Marks a run as run here by `owner` until `work` settles. */
  running(runId: string, work: Promise<void>): void;
  /** Going runs nobody runs in this instance: found in storage when it started, or left by a runner that stopped. */
  orphans(): string[];
  /**
   * Ends going runs silent for two leases that nobody runs here (`run_lost`, as a reader would), deletes
   * finished runs past their retention and expired values from storage. Returns when the alarm
   * should run next: `leaseMs` ahead while runs go on, else when the next finished run's retention ends.
   */
  sweep(): Promise<number | undefined>;
}

/** Lists every entry under `prefix`, `PAGE` at a time (a long run has many events). */
async function listAll<T>(storage: RunObjectStorage, prefix: string): Promise<Map<string, T>> {
  const all = new Map<string, T>();
  let startAfter: string | undefined;
  for (;;) {
    const page = await storage.list<T>({ prefix, limit: PAGE * 8, ...(startAfter ? { startAfter } : {}) });
    for (const [key, value] of page) all.set(key, value);
    if (page.size < PAGE * 8) return all;
    startAfter = [...page.keys()].at(-1);
  }
}

async function deleteAll(storage: RunObjectStorage, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += PAGE) await storage.delete(keys.slice(i, i + PAGE));
}

/** A run's stored events in order, parts joined (a split event's head is `#<parts>`; a JSON event starts with `{`). */
async function readEvents(storage: RunObjectStorage, id: string): Promise<Event[]> {
  const events: Event[] = [];
  let split: { count: number; parts: string[] } | undefined;
  for (const value of (await listAll<string>(storage, eventsPrefix(id))).values()) {
    if (split) {
      split.parts.push(value);
      if (split.parts.length < split.count) continue;
      events.push(JSON.parse(split.parts.join('')) as Event);
      split = undefined;
    } else if (value.startsWith('#')) split = { count: Number(value.slice(1)), parts: [] };
    else events.push(JSON.parse(value) as Event);
  }
  return events;
}

/** Writes one event, split in parts when its JSON is longer than `CHUNK`. */
async function writeEvent(storage: RunObjectStorage, id: string, seq: number, event: Event): Promise<void> {
  const json = JSON.stringify(event);
  const key = eventKey(id, seq);
  if (json.length <= CHUNK) return storage.put(key, json);
  const count = Math.ceil(json.length / CHUNK);
  await storage.put(key, `#${count}`);
  for (let i = 0; i < count; i++) await storage.put(`${key}#${String(i).padStart(6, '0')}`, json.slice(i * CHUNK, (i + 1) * CHUNK));
}

/**
 * Opens the object's runs: what its storage holds is read back into memory (a going run gets a fresh
 * lease and is an orphan until the alarm claims it); `limits` are stored for the next start (an alarm
 * carries none) and otherwise read from storage.
 *
 * @example
 * const store = await openStoredRuns(ctx.storage, call.limits);
 * for (const runId of store.orphans()) await takeOverRun(objectContext, c, runId);
 */
export async function openStoredRuns(storage: RunObjectStorage, given?: RunLimits): Promise<StoredRunStore | undefined> {
  const limits = given ?? (await storage.get<RunLimits>(LIMITS));
  if (!limits) return undefined; // never called: nothing stored
  if (given) await storage.put(LIMITS, given);
  const records = new Map<string, StoredRecord>();
  /** The next sequence not yet stored, per going run. */
  const storedUpTo = new Map<string, number>();
  /** Going runs and the work that runs them here. */
  const live = new Map<string, Promise<void>>();
  /** When a going run's owner was last heard from (an append or a renewal): the alarm ends one silent too long. */
  const heard = new Map<string, number>();
  const save = (record: StoredRecord) => storage.put(runKey(record.id), record);
  const memory = createMemoryRunStore({
    limits,
    pollMs: false,
    // A run whose lease lapsed, ended lost in memory: stored so, so a restart does not bring it back.
    onLost: (runId, events) => void endStored(runId, events),
  });

  async function endStored(runId: string, events: Event[]): Promise<void> {
    const record = records.get(runId);
    if (!record) return;
    let seq = storedUpTo.get(runId) ?? 0;
    for (const event of events) await writeEvent(storage, runId, seq++, event);
    storedUpTo.set(runId, seq);
    record.status = 'finished';
    record.finishedAt = Date.now();
    await save(record);
  }

  // What storage holds, read back: finished runs within their retention, going runs as orphans.
  const stale: string[] = [];
  for (const record of (await listAll<StoredRecord>(storage, 'r:')).values()) {
    if (record.status === 'finished' && (record.finishedAt ?? 0) + limits.retainMs <= Date.now()) {
      stale.push(record.id);
      continue;
    }
    const events = await readEvents(storage, record.id);
    await memory.create({ id: record.id, requestKey: record.requestKey, createdAt: record.createdAt });
    for (const [seq, event] of events.entries()) await memory.append(record.id, event, seq);
    if (record.cancelRequested) await memory.cancel(record.id);
    if (record.status === 'finished') await memory.finish(record.id).catch(() => {});
    records.set(record.id, record);
    storedUpTo.set(record.id, events.length);
    heard.set(record.id, Date.now());
  }
  for (const id of stale) await forget(id);
  for (const [key, value] of await listAll<StoredValue>(storage, 'v:')) {
    if (value.until > Date.now()) await memory.setValue(key.slice(2), value.value, value.until - Date.now());
  }

  async function forget(id: string): Promise<void> {
    records.delete(id);
    storedUpTo.delete(id);
    heard.delete(id);
    await deleteAll(storage, [runKey(id), ...(await listAll<string>(storage, eventsPrefix(id))).keys()]);
  }

  /** Appends by an owner that is not the run's (it was taken over) are refused, as Redis refuses them. */
  const fence = (runId: string, owner: string | undefined) => {
    const current = records.get(runId)?.owner;
    if (owner !== undefined && current !== undefined && current !== owner) throw runEndedError(runId);
  };

  return {
    ...memory,
    async create(run: NewRun) {
      const created = await memory.create(run);
      if (created.created) {
        const record: StoredRecord = { id: run.id, requestKey: run.requestKey, createdAt: run.createdAt, status: 'running' };
        if (run.owner !== undefined) record.owner = run.owner;
        records.set(run.id, record);
        storedUpTo.set(run.id, 0);
        heard.set(run.id, Date.now());
        await save(record);
      }
      return created;
    },
    async append(runId, event, at, owner) {
      fence(runId, owner);
      const result = await memory.append(runId, event, at);
      heard.set(runId, Date.now());
      // A retried append the memory store already had was stored with it.
      if (result.seq >= (storedUpTo.get(runId) ?? 0)) {
        await writeEvent(storage, runId, result.seq, event);
        storedUpTo.set(runId, result.seq + 1);
      }
      return result;
    },
    async finish(runId) {
      await memory.finish(runId);
      const record = records.get(runId);
      if (record && record.status !== 'finished') {
        record.status = 'finished';
        record.finishedAt = Date.now();
        await save(record);
      }
    },
    async cancel(runId) {
      const before = await memory.cancel(runId);
      const record = records.get(runId);
      if (before?.status === 'running' && record && !record.cancelRequested) {
        record.cancelRequested = true;
        await save(record);
      }
      return before;
    },
    async renewLease(runId, owner) {
      const current = records.get(runId)?.owner;
      if (owner !== undefined && current !== undefined && current !== owner) return { cancelled: true };
      heard.set(runId, Date.now());
      return memory.renewLease(runId);
    },
    async setValue(key, value, ttlMs) {
      await memory.setValue(key, value, ttlMs);
      await storage.put(`v:${key}`, { value, until: Date.now() + ttlMs } satisfies StoredValue);
    },
    async deleteValue(key, ifValue) {
      const had = await memory.getValue(key);
      await memory.deleteValue(key, ifValue);
      if (had !== undefined && (await memory.getValue(key)) === undefined) await storage.delete([`v:${key}`]);
    },
    async claim(runId, owner) {
      const record = records.get(runId);
      if (record?.status !== 'running' || live.has(runId)) return undefined;
      // Renewed first: a read of a run whose lease lapsed would end it lost.
      await memory.renewLease(runId);
      if ((await memory.get(runId))?.status !== 'running') return undefined;
      const events: Event[] = [];
      for (;;) {
        const batch = await memory.read(runId, events.length - 1, 0);
        for (const stored of batch.events) events.push(stored.event);
        if (batch.events.length === 0 || batch.finished) break;
      }
      if (events.at(-1)?.type === 'chat-finish') return undefined;
      record.owner = owner;
      heard.set(runId, Date.now());
      await save(record);
      return { events, reason: 'takeover' };
    },
    ownerOf: (runId) => records.get(runId)?.owner,
    running(runId, work) {
      live.set(runId, work);
      void work.finally(() => live.get(runId) === work && live.delete(runId));
    },
    orphans: () => [...records.values()].filter((r) => r.status === 'running' && !live.has(r.id)).map((r) => r.id),
    async sweep() {
      const now = Date.now();
      // A going run nobody runs here and nobody renewed for two leases (its Worker request is gone, it has no
      // recorded start to go on from): ended lost, as its first reader would end it, so the alarm can stop.
      for (const record of [...records.values()]) {
        if (record.status === 'running' && !live.has(record.id) && now - (heard.get(record.id) ?? 0) > 2 * limits.leaseMs) await memory.get(record.id);
      }
      for (const record of [...records.values()]) {
        if (record.status === 'finished' && (record.finishedAt ?? 0) + limits.retainMs <= now) await forget(record.id);
      }
      const values = [...(await listAll<StoredValue>(storage, 'v:'))];
      await deleteAll(
        storage,
        values.filter(([, v]) => v.until <= now).map(([key]) => key),
      );
      if ([...records.values()].some((r) => r.status === 'running')) return now + limits.leaseMs;
      const ends = [...[...records.values()].map((r) => (r.finishedAt ?? now) + limits.retainMs), ...values.map(([, v]) => v.until).filter((t) => t > now)];
      return ends.length > 0 ? Math.min(...ends) : undefined;
    },
  };
}
