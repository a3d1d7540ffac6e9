/**
 * The memory store's retention of finished runs as one phase: a finished run stays resumable for
 * `retainMs`, unless the finished runs together hold more than `maxBytes`; then the oldest are
 * evicted first. An evicted run leaves a small record (its id, owner and times) so a resume is
 * answered `run_expired`, not `not_found`: the client then starts a fresh run from its thread.
 * Those records are bounded too (`maxExpired`, oldest dropped first). No timers: the store sweeps
 * when it is used, so nothing keeps a process or a Worker isolate alive.
 */
import type { RunRecord } from './run-store.ts';

export interface FinishedRunsOptions {
  retainMs: number;
  /** Bytes of event JSON all finished runs together may hold. */
  maxBytes: number;
  /** Records of evicted runs kept (each a few hundred bytes). */
  maxExpired: number;
}

interface Kept {
  bytes: number;
  finishedAt: number;
}

export interface FinishedRuns {
  /** Bytes of event JSON the finished runs hold. */
  readonly bytes: number;
  /** How many evicted runs are remembered as expired. */
  readonly expiredCount: number;
  /** A run finished at `finishedAt` holding `bytes`. Returns the runs to evict now (oldest first) to keep within `maxBytes`. */
  add(runId: string, bytes: number, finishedAt: number): string[];
  /** Finished runs whose retention ended by `now` (to forget), oldest first; also forgets old expired records. */
  due(now: number): string[];
  /** Remembers an evicted run: a resume until its retention ends is answered `run_expired`. */
  expire(record: RunRecord, finishedAt: number): void;
  /** The record of an evicted run still remembered, or undefined. */
  expired(runId: string): RunRecord | undefined;
  /** A finished run was forgotten by the store (it is no longer counted). */
  forget(runId: string): void;
}

/**
 * The finished-run retention phase of the memory store.
 *
 * @example
 * const finished = createFinishedRuns({ retainMs: 600_000, maxBytes: 64 * 1024 * 1024, maxExpired: 10_000 });
 * for (const id of finished.add(run.id, run.bytes, Date.now())) evict(id);
 */
export function createFinishedRuns({ retainMs, maxBytes, maxExpired }: FinishedRunsOptions): FinishedRuns {
  // Maps iterate in insertion order: finish order, so the first entries are the oldest.
  const kept = new Map<string, Kept>();
  const expired = new Map<string, { record: RunRecord; until: number }>();
  let bytes = 0;
  const forget = (runId: string) => {
    const k = kept.get(runId);
    if (!k) return;
    kept.delete(runId);
    bytes -= k.bytes;
  };
  return {
    get bytes() {
      return bytes;
    },
    get expiredCount() {
      return expired.size;
    },
    add(runId, size, finishedAt) {
      kept.set(runId, { bytes: size, finishedAt });
      bytes += size;
      const evict: string[] = [];
      for (const [id, k] of kept) {
        if (bytes <= maxBytes) break;
        evict.push(id);
        kept.delete(id);
        bytes -= k.bytes;
      }
      return evict;
    },
    due(now) {
      const limit = now - retainMs;
      const out: string[] = [];
      for (const [id, k] of kept) {
        if (k.finishedAt >= limit) break;
        out.push(id);
      }
      for (const id of out) forget(id);
      for (const [id, e] of expired) {
        if (e.until >= now) break;
        expired.delete(id);
      }
      return out;
    },
    expire(record, finishedAt) {
      expired.set(record.id, { record: { ...record, status: 'finished', expired: true }, until: finishedAt + retainMs });
      for (const id of expired.keys()) {
        if (expired.size <= maxExpired) break;
        expired.delete(id);
      }
    },
    expired: (runId) => {
      const e = expired.get(runId);
      return e ? { ...e.record } : undefined;
    },
    forget,
  };
}
