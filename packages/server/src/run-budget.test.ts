// The memory store's limits phase alone: places for runs, bytes per run and bytes of all going runs.
import { ParlanceError } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createRunBudget } from './run-budget.ts';
import { DEFAULT_RUN_LIMITS } from './run-store.ts';

const code = (f: () => void) => {
  try {
    f();
  } catch (error) {
    return ParlanceError.isInstance(error) ? { code: error.code, status: error.status } : 'not typed';
  }
  return 'no error';
};

describe('run budget', () => {
  it('admits runs up to maxRunning and maxStoredRuns, then 503 overloaded; a released place is free again', () => {
    const b = createRunBudget({ limits: { ...DEFAULT_RUN_LIMITS, maxRunning: 2 }, maxStoredRuns: 3, maxLiveBytes: 1_000 });
    b.admit(0);
    b.admit(1);
    expect(code(() => b.admit(2))).toEqual({ code: 'overloaded', status: 503 });
    b.release({ events: [], bytes: 0 });
    expect(code(() => b.admit(3))).toEqual({ code: 'overloaded', status: 503 });
    b.admit(2);
    expect(b.running).toBe(2);
  });

  it.each([
    { what: 'events per run', run: { events: { length: 3 }, bytes: 0 }, size: 1 },
    { what: 'bytes per run', run: { events: { length: 0 }, bytes: 90 }, size: 20 },
    { what: 'bytes of all going runs', run: { events: { length: 0 }, bytes: 0 }, size: 600 },
  ])('stops a run over its $what with run_limit; a terminal event always fits', ({ run, size }) => {
    const b = createRunBudget({ limits: { ...DEFAULT_RUN_LIMITS, maxEventsPerRun: 3, maxBytesPerRun: 100 }, maxStoredRuns: 10, maxLiveBytes: 500 });
    expect(code(() => b.take(run, size, false))).toEqual({ code: 'run_limit', status: 413 });
    expect(code(() => b.take(run, size, true))).toBe('no error');
  });

  it('counts the live bytes of going runs, refuses new runs from 90% spent, and frees them when a run ends', () => {
    const b = createRunBudget({ limits: DEFAULT_RUN_LIMITS, maxStoredRuns: 10, maxLiveBytes: 100 });
    b.admit(0);
    const run = { events: { length: 0 }, bytes: 0 };
    b.take(run, 60, false);
    run.bytes = 60;
    b.admit(1);
    b.take(run, 30, false);
    run.bytes = 90;
    expect(b.liveBytes).toBe(90);
    expect(code(() => b.admit(1))).toEqual({ code: 'overloaded', status: 503 });
    b.release(run);
    expect(b.liveBytes).toBe(0);
    b.admit(2);
  });
});
