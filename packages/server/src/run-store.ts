/**
 * Where a run's events live while it streams and after, so a client that drops
 * can resume from Last-Event-ID. The in-memory store serves one process; a KV,
 * Durable Object or Redis store implements the same interface.
 */
import type { Event } from '@parlance/protocol';

export type RunStatus = 'running' | 'finished';

export interface RunRecord {
  id: string;
  /** `principalKey:clientRequestId`, so a repeated POST finds the run it started. */
  requestKey: string;
  status: RunStatus;
  createdAt: number;
}

export interface StoredEvent {
  seq: number;
  event: Event;
}

export interface RunStore {
  create(run: RunRecord): Promise<void>;
  get(runId: string): Promise<RunRecord | undefined>;
  findByRequestKey(requestKey: string): Promise<RunRecord | undefined>;
  /** Appends the next event; sequences start at 0 and have no gaps. */
  append(runId: string, event: Event): Promise<number>;
  finish(runId: string): Promise<void>;
  /**
   * Every event after `afterSeq` (-1 for all): what is stored, then live ones as
   * they are appended, ending when the run finishes or `signal` aborts.
   */
  follow(runId: string, afterSeq: number, signal?: AbortSignal): AsyncIterable<StoredEvent>;
}

interface MemoryRun {
  record: RunRecord;
  events: Event[];
  waiters: Set<() => void>;
  finishedAt?: number;
}

export interface MemoryRunStoreOptions {
  /** How long a finished run stays resumable (default 10 minutes). */
  retainMs?: number;
  /** At most this many runs are kept; the oldest finished ones go first (default 10,000). */
  maxRuns?: number;
  now?: () => number;
}

export function createMemoryRunStore(options: MemoryRunStoreOptions = {}): RunStore & { size(): number } {
  const retainMs = options.retainMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;
  const maxRuns = options.maxRuns ?? 10_000;
  const runs = new Map<string, MemoryRun>();
  const byKey = new Map<string, string>();

  // Expired runs are dropped lazily on each create: no timers, so nothing keeps a process or isolate alive.
  function sweep() {
    const limit = now() - retainMs;
    let excess = runs.size + 1 - maxRuns;
    // Map order is creation order, so the first finished runs met are the oldest.
    for (const [id, run] of runs) {
      if (run.finishedAt === undefined) continue;
      if (run.finishedAt < limit || excess > 0) {
        runs.delete(id);
        byKey.delete(run.record.requestKey);
        excess--;
      }
    }
  }

  function wake(run: MemoryRun) {
    const waiters = [...run.waiters];
    run.waiters.clear();
    for (const wake of waiters) wake();
  }

  return {
    size: () => runs.size,
    async create(record) {
      sweep();
      runs.set(record.id, { record: { ...record }, events: [], waiters: new Set() });
      byKey.set(record.requestKey, record.id);
    },
    async get(runId) {
      const run = runs.get(runId);
      return run ? { ...run.record } : undefined;
    },
    async findByRequestKey(key) {
      const id = byKey.get(key);
      const run = id === undefined ? undefined : runs.get(id);
      return run ? { ...run.record } : undefined;
    },
    async append(runId, event) {
      const run = runs.get(runId);
      if (!run) throw new Error(`No run ${runId}`);
      run.events.push(event);
      wake(run);
      return run.events.length - 1;
    },
    async finish(runId) {
      const run = runs.get(runId);
      if (!run) return;
      run.record.status = 'finished';
      run.finishedAt = now();
      wake(run);
    },
    async *follow(runId, afterSeq, signal) {
      const run = runs.get(runId);
      if (!run) return;
      let next = afterSeq + 1;
      while (!signal?.aborted) {
        while (next < run.events.length) {
          yield { seq: next, event: run.events[next]! };
          next++;
        }
        if (run.record.status === 'finished') return;
        await new Promise<void>((resolve) => {
          const done = () => {
            signal?.removeEventListener('abort', done);
            run.waiters.delete(done);
            resolve();
          };
          run.waiters.add(done);
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    },
  };
}
