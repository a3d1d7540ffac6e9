// Revision marks (see revision-marks.ts): what a save leaves for every tab, and how long a read waits for it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeLocks } from '../test/fake-locks.ts';
import { MARK_WAIT_MS, revisionMarks } from './revision-marks.ts';

describe('revision marks', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });
  const held = async (locks: LockManager) => (await locks.query()).held!.map((l) => l.name);

  it('a page holds one mark per thread: the newest revision it saved', async () => {
    const locks = fakeLocks();
    vi.stubGlobal('navigator', { locks });
    const marks = revisionMarks('one:');
    await marks.mark('t', 1);
    await marks.mark('t', 2);
    await marks.mark('u', 7);
    expect((await held(locks)).sort()).toEqual(['parlance-rev:one:t:2', 'parlance-rev:one:u:7']);
  });

  it("a read waits until this tab's copy shows the newest mark, then goes on", async () => {
    vi.stubGlobal('navigator', { locks: fakeLocks() });
    const marks = revisionMarks('two:');
    await marks.mark('t', 4);
    let copy = 3;
    let done = false;
    const waiting = marks.caughtUp('t', () => copy).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    copy = 4;
    await waiting;
    // Caught up already: no wait.
    await marks.caughtUp('t', () => copy);
  });

  it('a copy that never shows the mark (storage cleared by hand): the read goes on after MARK_WAIT_MS, and that mark is not waited for again', async () => {
    vi.stubGlobal('navigator', { locks: fakeLocks() });
    const marks = revisionMarks('three:');
    await marks.mark('t', 9);
    vi.useFakeTimers();
    let done = 0;
    const waiting = marks.caughtUp('t', () => -1).then(() => done++);
    await vi.advanceTimersByTimeAsync(MARK_WAIT_MS / 2);
    expect(done).toBe(0);
    await vi.advanceTimersByTimeAsync(MARK_WAIT_MS);
    await waiting;
    // Given up on: not waited for again (no timer needed).
    await marks.caughtUp('t', () => -1);
    // A newer mark is waited for again.
    await marks.mark('t', 10);
    const again = marks.caughtUp('t', () => -1).then(() => done++);
    await vi.advanceTimersByTimeAsync(MARK_WAIT_MS / 2);
    expect(done).toBe(1);
    await vi.advanceTimersByTimeAsync(MARK_WAIT_MS);
    await again;
    expect(done).toBe(2);
  });

  it('without Web Locks nothing is marked and nothing waits', async () => {
    vi.stubGlobal('navigator', {});
    const marks = revisionMarks('four:');
    await marks.mark('t', 1);
    await marks.caughtUp('t', () => -1);
  });
});
