/**
 * The memory store's limits as one phase: what a run may hold (`maxEventsPerRun`,
 * `maxBytesPerRun`) and what the whole store may hold while runs go on (`maxRunning`,
 * `maxStoredRuns`, `maxLiveBytes`). Counting only: nothing here keeps an event.
 */
import { ParlanceError } from '@parlance/protocol';
import { overloadedError, type RunLimits, runLimitError } from './run-store.ts';

export interface RunBudgetOptions {
  limits: RunLimits;
  /** Runs kept at once (going, finished within retention). */
  maxStoredRuns: number;
  /** Bytes of event JSON all going runs together may hold. */
  maxLiveBytes: number;
}

/** What the budget reads of a run: how many events and bytes it holds. */
export interface Held {
  events: { length: number };
  bytes: number;
}

export interface RunBudget {
  /** Going runs. */
  readonly running: number;
  /** Bytes of event JSON the going runs hold. */
  readonly liveBytes: number;
  /** Takes a place for a new run, or throws `overloaded` (503, Retry-After) when none is left or 90% of `maxLiveBytes` is held. */
  admit(stored: number): void;
  /**
   * Takes `size` bytes for the next event of `run`, or throws `run_limit` when it does not fit the
   * run's limits or the store's live bytes. `chat-finish` and `error` (terminal) always fit.
   */
  take(run: Held, size: number, terminal: boolean): void;
  /** A going run ended: its place and its bytes go back. */
  release(run: Held): void;
}

/**
 * The limits phase of the memory store.
 *
 * @example
 * const budget = createRunBudget({ limits: DEFAULT_RUN_LIMITS, maxStoredRuns: 10_000, maxLiveBytes: 128 * 1024 * 1024 });
 * budget.admit(runs.size); // throws overloaded at a cap
 */
export function createRunBudget({ limits, maxStoredRuns, maxLiveBytes }: RunBudgetOptions): RunBudget {
  let running = 0;
  let liveBytes = 0;
  return {
    get running() {
      return running;
    },
    get liveBytes() {
      return liveBytes;
    },
    admit(stored) {
      if (running >= limits.maxRunning || stored >= maxStoredRuns) throw overloadedError(limits);
      // At 90% spent, new runs wait: the room left is for the going runs to finish in.
      if (liveBytes >= maxLiveBytes * 0.9) {
        throw new ParlanceError('overloaded', 'This server holds as many replies in memory as it may; try again shortly', { status: 503, retryAfterMs: 1_000 });
      }
      running++;
    },
    take(run, size, terminal) {
      if (!terminal) {
        if (run.events.length >= limits.maxEventsPerRun) throw runLimitError(`${limits.maxEventsPerRun} events`);
        if (run.bytes + size > limits.maxBytesPerRun) throw runLimitError(`${limits.maxBytesPerRun} bytes`);
        if (liveBytes + size > maxLiveBytes) throw runLimitError(`memory (${maxLiveBytes} bytes for all replies going on)`);
      }
      liveBytes += size;
    },
    release(run) {
      running--;
      liveBytes -= run.bytes;
    },
  };
}
