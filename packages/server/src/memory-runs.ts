/**
 * The memory store's runs as one phase: the table of runs by id and by request key, each run's
 * events, lease and waiting readers. It keeps what it is given; the limits (run-budget.ts) and the
 * retention of finished runs (finished-runs.ts) decide what it may hold and for how long.
 */
import type { Event } from '@parlance/protocol';
import { PackedEvents } from './packed-events.ts';
import type { NewRun, RunRecord } from './run-store.ts';

export interface MemoryRun {
  record: RunRecord;
  /** As appended while the run goes on; packed once it finished (kept for resume during its retention). */
  events: Event[] | PackedEvents;
  /** Bytes of event JSON it holds. */
  bytes: number;
  leaseUntil: number;
  finishedAt?: number;
  /** Readers waiting for its next event (woken by `push`, `end` and a cancel). */
  waiters: Set<() => void>;
}

export interface RunTable {
  readonly size: number;
  get(runId: string): MemoryRun | undefined;
  /** The run a request key started, if it is still kept. */
  byRequestKey(requestKey: string): MemoryRun | undefined;
  /** Adds a going run with a lease until `leaseUntil`. */
  add(run: NewRun, leaseUntil: number): MemoryRun;
  /** Appends an event of `size` bytes and wakes the readers; returns its sequence. */
  push(run: MemoryRun, event: Event, size: number): number;
  /** Marks a going run finished at `at` and packs its events; false when it had finished already. */
  end(run: MemoryRun, at: number): boolean;
  /** Forgets a run and its request key. */
  delete(runId: string): void;
  /** Wakes the readers waiting on a run. */
  wake(run: MemoryRun): void;
  /** Every run kept, going or finished. */
  all(): IterableIterator<MemoryRun>;
}

/**
 * The runs phase of the memory store.
 *
 * @example
 * const table = createRunTable();
 * const run = table.add({ id: 'run_1', requestKey: 'p:r1', createdAt: Date.now() }, Date.now() + 15_000);
 * table.push(run, { type: 'text-delta', id: 't0', delta: 'Hi' }, 48);
 */
export function createRunTable(): RunTable {
  const runs = new Map<string, MemoryRun>();
  const byKey = new Map<string, string>();
  const wake = (run: MemoryRun) => {
    const waiters = [...run.waiters];
    run.waiters.clear();
    for (const w of waiters) w();
  };
  return {
    get size() {
      return runs.size;
    },
    get: (runId) => runs.get(runId),
    byRequestKey(requestKey) {
      const id = byKey.get(requestKey);
      return id === undefined ? undefined : runs.get(id);
    },
    add({ id, requestKey, createdAt }, leaseUntil) {
      const run: MemoryRun = { record: { id, requestKey, status: 'running', createdAt }, events: [], bytes: 0, leaseUntil, waiters: new Set() };
      runs.set(id, run);
      byKey.set(requestKey, id);
      return run;
    },
    push(run, event, size) {
      if (!Array.isArray(run.events)) run.events = run.events.slice(0, run.events.length);
      run.events.push(event);
      run.bytes += size;
      wake(run);
      return run.events.length - 1;
    },
    end(run, at) {
      if (run.record.status === 'finished') return false;
      run.record.status = 'finished';
      run.finishedAt = at;
      run.events = PackedEvents.pack(run.events as Event[]);
      wake(run);
      return true;
    },
    delete(runId) {
      const run = runs.get(runId);
      if (!run) return;
      runs.delete(runId);
      if (byKey.get(run.record.requestKey) === runId) byKey.delete(run.record.requestKey);
      wake(run);
    },
    wake,
    all: () => runs.values(),
  };
}
