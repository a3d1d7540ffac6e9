/**
 * The default `RunStore`: runs in this process's memory. Resume and cancel work on
 * any request this process (or Worker isolate) serves; behind a load balancer with
 * several instances use the Redis or Durable Object store.
 *
 * Memory is bounded: at most `maxRunning` runs go on and `maxStoredRuns` are kept,
 * each holding at most `maxBytesPerRun` of events; over a cap a new run is refused
 * (503), never made room for by dropping a run someone may still resume.
 */
import type { Event } from '@parlance/protocol';
import {
  type CreatedRun,
  DEFAULT_RUN_LIMITS,
  isTerminalEvent,
  lostRunEvents,
  type NewRun,
  overloadedError,
  type RunLimits,
  type RunRecord,
  type RunSignal,
  type RunStore,
  runLimitError,
  type StoredEvent,
} from './run-store.ts';
import { jsonLength } from './json-length.ts';
import { PackedEvents } from './packed-events.ts';

/**
 * Options of {@link createMemoryRunStore}.
 *
 * @example
 * ```ts
 * const store = createMemoryRunStore({ limits: { maxRunning: 100 }, maxStoredRuns: 5_000 });
 * ```
 */
export interface MemoryRunStoreOptions {
  /** Per-run and per-store limits (defaults: `DEFAULT_RUN_LIMITS`). */
  limits?: Partial<RunLimits>;
  /** Runs kept at once, going or finished within their retention (default 10,000); over it a new run is refused with 503. */
  maxStoredRuns?: number;
  /**
   * Readers look for new events every `pollMs` instead of being woken by the writer. A
   * Workers request cannot be resumed by another request ("Cannot perform I/O on behalf of
   * a different request"), so on Cloudflare Workers the default is 25 ms; elsewhere (and
   * inside a Durable Object, where requests share one context) `false`: woken at once.
   */
  pollMs?: number | false;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

interface MemoryRun {
  record: RunRecord;
  /** As appended while the run goes on; packed once it finished (kept for resume during its retention). */
  events: Event[] | PackedEvents;
  bytes: number;
  leaseUntil: number;
  finishedAt?: number;
  waiters: Set<() => void>;
}

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
  /** One batch of events after `afterSeq`, waiting up to `waitMs` for the first. */
  read(runId: string, afterSeq: number, waitMs: number, signal?: AbortSignal): Promise<RunBatch | undefined>;
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
  const runs = new Map<string, MemoryRun>();
  const byKey = new Map<string, string>();
  let running = 0;
  const cancelListeners = new Map<string, Set<() => void>>();

  function wake(run: MemoryRun) {
    const waiters = [...run.waiters];
    run.waiters.clear();
    for (const w of waiters) w();
  }

  /** `size`: the event's JSON length when the caller measured it already (counted, not serialized: the frame serializes it). */
  function push(run: MemoryRun, event: Event, size = jsonLength(event)): number {
    if (!Array.isArray(run.events)) run.events = run.events.slice(0, run.events.length);
    run.events.push(event);
    run.bytes += size;
    wake(run);
    return run.events.length - 1;
  }

  function end(run: MemoryRun) {
    if (run.record.status === 'finished') return;
    run.record.status = 'finished';
    run.finishedAt = now();
    run.events = PackedEvents.pack(run.events as Event[]);
    running--;
    wake(run);
  }

  /** A going run whose owner stopped renewing its lease is ended as lost, keeping what it said. */
  function reapIfLost(run: MemoryRun): boolean {
    if (run.record.status !== 'running' || run.leaseUntil >= now()) return false;
    for (const event of lostRunEvents()) push(run, event);
    end(run);
    return true;
  }

  // Expired runs are dropped lazily: no timers, so nothing keeps a process or isolate alive.
  function sweep() {
    const limit = now() - limits.retainMs;
    for (const [id, run] of runs) {
      reapIfLost(run);
      if (run.finishedAt !== undefined && run.finishedAt < limit) {
        runs.delete(id);
        byKey.delete(run.record.requestKey);
      }
    }
  }

  function live(runId: string): MemoryRun | undefined {
    const run = runs.get(runId);
    if (run) reapIfLost(run);
    return run;
  }

  function wait(run: MemoryRun, ms: number, signal?: AbortSignal): Promise<void> {
    return pollMs === false ? waitForChange(run.waiters, ms, signal) : waitForChange(undefined, Math.min(ms, pollMs), signal);
  }

  /**
   * Up to `READ_BATCH` events after `afterSeq`, waiting up to `waitMs` for the first one.
   * `finished` when these are the run's last events. Undefined for an unknown run.
   */
  async function read(runId: string, afterSeq: number, waitMs: number, signal?: AbortSignal): Promise<RunBatch | undefined> {
    const run = runs.get(runId);
    if (!run) return undefined;
    const until = Date.now() + waitMs;
    for (;;) {
      reapIfLost(run);
      const from = afterSeq + 1;
      const finished = run.record.status === 'finished';
      if (from < run.events.length || finished) {
        const to = Math.min(run.events.length, from + READ_BATCH);
        const events = run.events.slice(from, to).map((event, i) => ({ seq: from + i, event }));
        return { events, finished: finished && to >= run.events.length };
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
    size: () => runs.size,
    async create(record: NewRun): Promise<CreatedRun> {
      sweep();
      const existing = byKey.get(record.requestKey);
      const found = existing === undefined ? undefined : runs.get(existing);
      if (found) return { run: { ...found.record }, created: false };
      if (running >= limits.maxRunning || runs.size >= maxStoredRuns) throw overloadedError(limits);
      const run: MemoryRun = {
        record: { id: record.id, requestKey: record.requestKey, status: 'running', createdAt: record.createdAt },
        events: [],
        bytes: 0,
        leaseUntil: now() + limits.leaseMs,
        waiters: new Set(),
      };
      runs.set(record.id, run);
      byKey.set(record.requestKey, record.id);
      running++;
      return { run: { ...run.record }, created: true };
    },
    async get(runId) {
      const run = live(runId);
      return run ? { ...run.record } : undefined;
    },
    async append(runId, event) {
      const run = runs.get(runId);
      if (!run || run.record.status === 'finished') throw new Error(`No running run ${runId}`);
      const size = jsonLength(event);
      if (!isTerminalEvent(event)) {
        if (run.events.length >= limits.maxEventsPerRun) throw runLimitError(`${limits.maxEventsPerRun} events`);
        if (run.bytes + size > limits.maxBytesPerRun) throw runLimitError(`${limits.maxBytesPerRun} bytes`);
      }
      run.leaseUntil = now() + limits.leaseMs;
      return { seq: push(run, event, size), cancelled: run.record.cancelRequested === true };
    },
    async finish(runId) {
      const run = runs.get(runId);
      if (run) end(run);
    },
    async cancel(runId) {
      const run = live(runId);
      if (!run) return undefined;
      const before = { ...run.record };
      if (run.record.status === 'running') {
        run.record.cancelRequested = true;
        wake(run);
        for (const listener of [...(cancelListeners.get(runId) ?? [])]) listener();
      }
      return before;
    },
    async renewLease(runId) {
      const run = runs.get(runId);
      if (!run) return { cancelled: true };
      if (run.record.status === 'running') run.leaseUntil = now() + limits.leaseMs;
      return { cancelled: run.record.cancelRequested === true };
    },
    async waitCancel(runId, waitMs, signal) {
      const run = runs.get(runId);
      if (!run) return { cancelled: true };
      const until = Date.now() + waitMs;
      while (run.record.status === 'running' && !run.record.cancelRequested && !signal?.aborted && Date.now() < until) {
        run.leaseUntil = now() + limits.leaseMs;
        await wait(run, Math.min(until - Date.now(), checkEvery(limits)), signal);
      }
      if (run.record.status === 'running') run.leaseUntil = now() + limits.leaseMs;
      return { cancelled: run.record.cancelRequested === true };
    },
    read,
    async *follow(runId, afterSeq, signal): AsyncGenerator<StoredEvent> {
      let next = afterSeq + 1;
      while (!signal?.aborted) {
        const batch = await read(runId, next - 1, checkEvery(limits), signal);
        if (!batch) return;
        for (const stored of batch.events) {
          yield stored;
          next = stored.seq + 1;
        }
        if (batch.finished) return;
      }
    },
  };
}
