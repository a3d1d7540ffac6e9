/**
 * The default `RunStore`: runs in this process's memory. Resume and cancel work on
 * any request this process (or Worker isolate) serves; behind a load balancer with
 * several instances use the Redis or Durable Object store.
 *
 * Three phases, each in its own file and testable alone: the runs (memory-runs.ts), the limits
 * (run-budget.ts) and the retention of finished runs (finished-runs.ts). This file wires them
 * to the `RunStore` contract. Memory is bounded by bytes, not only by counts: going runs hold
 * at most `maxLiveBytes` of events together (past it a run is stopped with `run_limit` and new
 * runs are refused with 503), finished runs at most `maxFinishedBytes` (past it the oldest are
 * evicted and answer `run_expired`), each run at most `maxBytesPerRun`.
 */
import type { Event, ReadyIterator } from '@parlance/protocol';
import { createFinishedRuns } from './finished-runs.ts';
import { jsonLength } from './json-length.ts';
import { createRunTable, type MemoryRun } from './memory-runs.ts';
import { createValueTable } from './memory-values.ts';
import { createRunBudget } from './run-budget.ts';
import {
  type CreatedRun,
  DEFAULT_RUN_LIMITS,
  isTerminalEvent,
  lostRunEvents,
  type NewRun,
  noEndingError,
  type RunLimits,
  type RunSignal,
  type RunStore,
  runEndedError,
  runExpiredError,
  runNotFoundError,
  type StoredEvent,
} from './run-store.ts';

/** Bytes of event JSON all going runs of a memory store hold together unless `maxLiveBytes` says otherwise (128 MiB). */
export const DEFAULT_MAX_LIVE_BYTES = 128 * 1024 * 1024;
/** Bytes of event JSON all finished runs of a memory store keep together unless `maxFinishedBytes` says otherwise (64 MiB). */
export const DEFAULT_MAX_FINISHED_BYTES = 64 * 1024 * 1024;
/** Bytes of values (`setValue`: the AI SDK route's chat -> run map) a memory store keeps unless `maxValueBytes` says otherwise (8 MiB). */
export const DEFAULT_MAX_VALUE_BYTES = 8 * 1024 * 1024;

/**
 * Options of {@link createMemoryRunStore}.
 *
 * @example
 * ```ts
 * const store = createMemoryRunStore({ limits: { maxRunning: 100 }, maxStoredRuns: 5_000, maxFinishedBytes: 32 * 1024 * 1024 });
 * ```
 */
export interface MemoryRunStoreOptions {
  /** Per-run and per-store limits (defaults: `DEFAULT_RUN_LIMITS`). */
  limits?: Partial<RunLimits>;
  /** Runs kept at once, going or finished within their retention (default 10,000); over it a new run is refused with 503. */
  maxStoredRuns?: number;
  /**
   * Bytes of event JSON all going runs may hold together (default 128 MiB). Past it the run whose
   * event does not fit is stopped with `run_limit` (it still ends properly); from 90% of it new
   * runs are refused with 503 until going runs end.
   */
  maxLiveBytes?: number;
  /**
   * Bytes of event JSON all finished runs may keep together for resume (default 64 MiB). Past it
   * the oldest finished runs are evicted before their `retainMs`: a resume of one answers
   * `run_expired` (410), and the client starts a fresh run from the thread it holds.
   */
  maxFinishedBytes?: number;
  /**
   * Bytes of values (`setValue`) kept together (default 8 MiB); past it the values set longest ago
   * are dropped first (for the AI SDK route: a reload of that chat does not resume its run).
   */
  maxValueBytes?: number;
  /**
   * Readers look for new events every `pollMs` instead of being woken by the writer. A
   * Workers request cannot be resumed by another request ("Cannot perform I/O on behalf of
   * a different request"), so on Cloudflare Workers the default is 25 ms; elsewhere (and
   * inside a Durable Object, where requests share one context) `false`: woken at once.
   */
  pollMs?: number | false;
  /** The clock (default `Date.now`). */
  now?: () => number;
  /**
   * Told when a run whose lease lapsed is ended here with `lostRunEvents()` (already stored in memory):
   * a store that keeps runs beyond this memory (the Durable Object's storage) writes the ending there too.
   */
  onLost?: (runId: string, events: Event[]) => void;
}

/** Runs `f` once the event loop has turned (setImmediate where there is one: Node; else a 0 ms timer). */
const afterTurn: (f: () => void) => void = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate ?? ((f) => setTimeout(f, 0));

/** How often a waiting reader looks again even with no news: to see a lapsed lease, and as a fallback wake-up. */
function checkEvery(limits: RunLimits): number {
  return Math.max(10, Math.min(1_000, limits.leaseMs / 4));
}

/**
 * Waits for a waker in `waiters` to be called, `ms` to pass or `signal` to abort. A waker
 * only resolves a promise: the timer is cleared here, after the wait, because on Workers
 * a timer belongs to the request that set it and the waker may run in another request.
 */
export async function waitForChange(waiters: Set<() => void> | undefined, ms: number, signal?: AbortSignal): Promise<void> {
  let wake!: () => void;
  const woken = new Promise<void>((resolve) => (wake = resolve));
  const timer = setTimeout(wake, ms);
  waiters?.add(wake);
  signal?.addEventListener('abort', wake, { once: true });
  await woken;
  clearTimeout(timer);
  waiters?.delete(wake);
  signal?.removeEventListener('abort', wake);
}

/** Events after a sequence, as one read hands them out. */
export interface RunBatch {
  events: StoredEvent[];
  /** These are the run's last events: it finished. */
  finished: boolean;
}

/** At most this many events per read, so replaying a long run never copies it whole. */
const READ_BATCH = 512;

/** The memory store, with the reads a Durable Object serves to other isolates. */
export interface MemoryRunStore extends RunStore {
  /** How many runs are kept. */
  size(): number;
  /** Bytes of event JSON held: by going runs (`live`) and by finished runs kept for resume (`finished`). */
  bytes(): { live: number; finished: number };
  /**
   * One batch of events after `afterSeq`, waiting up to `waitMs` for the first. Throws `not_found`
   * for a run it does not know and `run_expired` for one whose events it dropped.
   */
  read(runId: string, afterSeq: number, waitMs: number, signal?: AbortSignal): Promise<RunBatch>;
  /** Renews the lease and waits up to `waitMs` for a cancel. */
  waitCancel(runId: string, waitMs: number, signal?: AbortSignal): Promise<RunSignal>;
}

/**
 * A run store in this process's memory (the default).
 *
 * @example
 * ```ts
 * import { createMemoryRunStore, createParlanceApp, engineRunner } from '@parlance/server';
 * const app = createParlanceApp({ run: engineRunner(), models, store: createMemoryRunStore({ limits: { retainMs: 60_000 } }) });
 * ```
 */
export function createMemoryRunStore(options: MemoryRunStoreOptions = {}): MemoryRunStore {
  const limits: RunLimits = { ...DEFAULT_RUN_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  const maxStoredRuns = options.maxStoredRuns ?? 10_000;
  const onWorkers = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
  const pollMs = options.pollMs ?? (onWorkers ? 25 : false);
  const table = createRunTable();
  const budget = createRunBudget({ limits, maxStoredRuns, maxLiveBytes: options.maxLiveBytes ?? DEFAULT_MAX_LIVE_BYTES });
  const finished = createFinishedRuns({ retainMs: limits.retainMs, maxBytes: options.maxFinishedBytes ?? DEFAULT_MAX_FINISHED_BYTES, maxExpired: maxStoredRuns });
  const cancelListeners = new Map<string, Set<() => void>>();
  const values = createValueTable(options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES);

  /** Ends a going run: its place and live bytes go back, it is kept for resume, and finished runs past the budget are evicted. */
  function close(run: MemoryRun) {
    if (!table.end(run, now())) return;
    budget.release(run);
    for (const id of finished.add(run.record.id, run.bytes, run.finishedAt!)) {
      const evicted = table.get(id);
      if (!evicted) continue;
      finished.expire(evicted.record, evicted.finishedAt!);
      table.delete(id);
    }
  }

  /** A going run whose owner stopped renewing its lease is ended as lost, keeping what it said. */
  function reapIfLost(run: MemoryRun): boolean {
    if (run.record.status !== 'running' || run.leaseUntil >= now()) return false;
    // Its chat-finish is stored (only the finish call was lost): it ended, once; it is not lost.
    const ended = (run.events as Event[]).at(-1)?.type === 'chat-finish';
    const lost = ended ? [] : lostRunEvents();
    for (const event of lost) table.push(run, event, jsonLength(event));
    close(run);
    options.onLost?.(run.record.id, lost);
    return true;
  }

  // Expired runs are dropped lazily: no timers, so nothing keeps a process or isolate alive.
  function sweep() {
    for (const run of [...table.all()]) reapIfLost(run);
    for (const id of finished.due(now())) table.delete(id);
  }

  /** The run, or the typed reason there is none. */
  function known(runId: string): MemoryRun {
    const run = table.get(runId);
    if (run) return run;
    throw finished.expired(runId) ? runExpiredError(runId) : runNotFoundError(runId);
  }

  async function wait(run: MemoryRun, ms: number, signal?: AbortSignal): Promise<void> {
    if (pollMs !== false) return waitForChange(undefined, Math.min(ms, pollMs), signal);
    await waitForChange(run.waiters, ms, signal);
    // Woken by the first event of a burst (an upstream chunk decodes to many): the rest arrive before
    // the event loop turns, so the read after one turn takes them together. Else a reader that keeps
    // up waits (a timer and an abort listener) once per event.
    if (!signal?.aborted) await new Promise<void>((resolve) => afterTurn(resolve));
  }

  /** Up to `READ_BATCH` events after `afterSeq`, waiting up to `waitMs` for the first one; `finished` when these are the run's last. */
  async function read(runId: string, afterSeq: number, waitMs: number, signal?: AbortSignal): Promise<RunBatch> {
    const until = Date.now() + waitMs;
    for (;;) {
      // Looked up on every pass: a finished run may be evicted while its reader waits.
      const run = known(runId);
      reapIfLost(run);
      const from = afterSeq + 1;
      const done = run.record.status === 'finished';
      if (from < run.events.length || done) {
        const to = Math.min(run.events.length, from + READ_BATCH);
        const events = run.events.slice(from, to).map((event, i) => ({ seq: from + i, event }));
        return { events, finished: done && to >= run.events.length };
      }
      const left = until - Date.now();
      if (left <= 0 || signal?.aborted) return { events: [], finished: false };
      await wait(run, Math.min(left, checkEvery(limits)), signal);
    }
  }

  return {
    limits,
    // Where a cancel can call the run's owner directly (one context: Node, a Durable Object) it does,
    // through onCancel; on Workers the owner's own timer looks every 100 ms (no I/O, cheap).
    renewEveryMs: pollMs === false ? limits.leaseMs / 4 : Math.min(100, limits.leaseMs / 4),
    ...(pollMs === false
      ? {
          onCancel(runId: string, listener: () => void) {
            let set = cancelListeners.get(runId);
            if (!set) cancelListeners.set(runId, (set = new Set()));
            set.add(listener);
            return () => {
              set.delete(listener);
              if (set.size === 0) cancelListeners.delete(runId);
            };
          },
        }
      : {}),
    size: () => table.size,
    bytes: () => ({ live: budget.liveBytes, finished: finished.bytes }),
    async create(record: NewRun): Promise<CreatedRun> {
      sweep();
      const found = table.byRequestKey(record.requestKey);
      if (found) return { run: { ...found.record }, created: false };
      budget.admit(table.size);
      const run = table.add(record, now() + limits.leaseMs);
      return { run: { ...run.record }, created: true };
    },
    async get(runId) {
      const run = table.get(runId);
      if (!run) return finished.expired(runId);
      reapIfLost(run);
      return { ...run.record };
    },
    async append(runId, event, at) {
      const run = known(runId);
      if (run.record.status === 'finished') throw runEndedError(runId);
      // Written already by an attempt whose answer was lost.
      if (at !== undefined && at < run.events.length) return { seq: at, cancelled: run.record.cancelRequested === true };
      const size = jsonLength(event);
      budget.take(run, size, isTerminalEvent(event));
      run.leaseUntil = now() + limits.leaseMs;
      return { seq: table.push(run, event, size), cancelled: run.record.cancelRequested === true };
    },
    async finish(runId) {
      const run = known(runId);
      if (run.record.status === 'finished') return;
      const events = run.events as Event[];
      if (events.at(-1)?.type !== 'chat-finish') throw noEndingError(runId);
      close(run);
    },
    async cancel(runId) {
      const run = table.get(runId);
      if (!run) return finished.expired(runId);
      reapIfLost(run);
      const before = { ...run.record };
      if (run.record.status === 'running') {
        run.record.cancelRequested = true;
        table.wake(run);
        for (const listener of [...(cancelListeners.get(runId) ?? [])]) listener();
      }
      return before;
    },
    async renewLease(runId) {
      const run = table.get(runId);
      if (!run) return { cancelled: true };
      if (run.record.status === 'running') run.leaseUntil = now() + limits.leaseMs;
      return { cancelled: run.record.cancelRequested === true };
    },
    async waitCancel(runId, waitMs, signal) {
      const run = table.get(runId);
      if (!run) return { cancelled: true };
      const until = Date.now() + waitMs;
      while (run.record.status === 'running' && !run.record.cancelRequested && !signal?.aborted && Date.now() < until) {
        run.leaseUntil = now() + limits.leaseMs;
        await wait(run, Math.min(until - Date.now(), checkEvery(limits)), signal);
      }
      if (run.record.status === 'running') run.leaseUntil = now() + limits.leaseMs;
      return { cancelled: run.record.cancelRequested === true };
    },
    async setValue(key, value, ttlMs) {
      values.set(key, value, now() + ttlMs);
    },
    async getValue(key) {
      return values.get(key, now());
    },
    async deleteValue(key, ifValue) {
      values.delete(key, ifValue);
    },
    read,
    follow(runId, afterSeq, signal): ReadyIterator<StoredEvent> {
      // A hand-written iterator: a read's batch is handed out through `takeReady()` (the protocol's
      // ready-iterator.ts) without a promise per event, and `next()` reads the store once it is empty.
      let batch: StoredEvent[] = [];
      let index = 0;
      let next = afterSeq + 1;
      let over = false;
      const take = (): StoredEvent => {
        const stored = batch[index++]!;
        next = stored.seq + 1;
        return stored;
      };
      const iterator: ReadyIterator<StoredEvent> = {
        takeReady: () => (index < batch.length ? take() : undefined),
        async next() {
          while (index >= batch.length && !over && !signal?.aborted) {
            const got = await read(runId, next - 1, checkEvery(limits), signal);
            batch = got.events;
            index = 0;
            if (got.finished) over = true;
          }
          return index < batch.length ? { done: false, value: take() } : { done: true, value: undefined };
        },
        async return() {
          over = true;
          batch = [];
          return { done: true, value: undefined };
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    },
  };
}

