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
  type RunStore,
  runLimitError,
  type StoredEvent,
} from './run-store.ts';

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
  /** The clock (default `Date.now`). */
  now?: () => number;
}

interface MemoryRun {
  record: RunRecord;
  events: Event[];
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
 * Waits for `wake` to be called, `ms` to pass or `signal` to abort. The timer belongs to the
 * waiting request: on Workers a request cannot rely on another request to resume it.
 */
export function waitForChange(waiters: Set<() => void>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    waiters.add(done);
    signal?.addEventListener('abort', done, { once: true });
  });
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
export function createMemoryRunStore(options: MemoryRunStoreOptions = {}): RunStore & { size(): number } {
  const limits: RunLimits = { ...DEFAULT_RUN_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  const maxStoredRuns = options.maxStoredRuns ?? 10_000;
  const runs = new Map<string, MemoryRun>();
  const byKey = new Map<string, string>();
  let running = 0;

  function wake(run: MemoryRun) {
    const waiters = [...run.waiters];
    run.waiters.clear();
    for (const w of waiters) w();
  }

  function push(run: MemoryRun, event: Event): number {
    run.events.push(event);
    run.bytes += JSON.stringify(event).length;
    wake(run);
    return run.events.length - 1;
  }

  function end(run: MemoryRun) {
    if (run.record.status === 'finished') return;
    run.record.status = 'finished';
    run.finishedAt = now();
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

  return {
    limits,
    // No I/O: a cancel reaches the run within 100 ms, also on Workers where another request cannot abort it directly.
    heartbeatMs: Math.min(100, limits.leaseMs / 4),
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
      if (!isTerminalEvent(event)) {
        if (run.events.length >= limits.maxEventsPerRun) throw runLimitError(`${limits.maxEventsPerRun} events`);
        if (run.bytes + JSON.stringify(event).length > limits.maxBytesPerRun) throw runLimitError(`${limits.maxBytesPerRun} bytes`);
      }
      run.leaseUntil = now() + limits.leaseMs;
      return { seq: push(run, event), cancelled: run.record.cancelRequested === true };
    },
    async finish(runId) {
      const run = runs.get(runId);
      if (run) end(run);
    },
    async cancel(runId) {
      const run = live(runId);
      if (!run) return undefined;
      const before = { ...run.record };
      if (run.record.status === 'running') run.record.cancelRequested = true;
      return before;
    },
    async heartbeat(runId) {
      const run = runs.get(runId);
      if (!run) return { cancelled: true };
      if (run.record.status === 'running') run.leaseUntil = now() + limits.leaseMs;
      return { cancelled: run.record.cancelRequested === true };
    },
    async *follow(runId, afterSeq, signal): AsyncGenerator<StoredEvent> {
      const run = runs.get(runId);
      if (!run) return;
      let next = afterSeq + 1;
      while (!signal?.aborted) {
        while (next < run.events.length) {
          yield { seq: next, event: run.events[next]! };
          next++;
        }
        if (run.record.status === 'finished') return;
        if (reapIfLost(run)) continue;
        await waitForChange(run.waiters, checkEvery(limits), signal);
      }
    },
  };
}
