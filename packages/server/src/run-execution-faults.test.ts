// Exactly one ending, or a typed error (issue #26): a store that does not answer, or answers and
// loses the reply, in every phase of a run. No delta lost, none twice, one chat-finish at most, and
// a run is finished only once its chat-finish is stored.
import type { Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { gate, textOf, textRunner } from '../test/helpers.ts';
import { createMemoryRunStore } from './memory-run-store.ts';
import { executeRun } from './run-execution.ts';
import type { RunLimits, RunStore, StoredEvent } from './run-store.ts';

const WORDS = Array.from({ length: 20 }, (_, i) => `w${i} `);
const LIMITS: Partial<RunLimits> = { storeGraceMs: 150, leaseMs: 300 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A memory store that a test turns unreachable: refusing calls, or doing them and losing the reply. */
function faultyStore() {
  const memory = createMemoryRunStore({ limits: LIMITS });
  const state = { mode: 'up' as 'up' | 'refuse' | 'lose-reply', finishDown: false, failures: 0, deltas: 0, failAtDelta: -1, recoverAfter: Infinity };
  const refused = () => {
    state.failures++;
    if (state.failures >= state.recoverAfter) state.mode = 'up';
    return new Error('connect ECONNREFUSED 127.0.0.1:6379');
  };
  const store: RunStore = {
    ...memory,
    async append(runId, event, at) {
      if (event.type === 'text-delta' && state.deltas++ === state.failAtDelta && state.mode === 'up') state.mode = state.recoverAfter === -1 ? 'up' : pending;
      if (state.mode === 'refuse') throw refused();
      const result = await memory.append(runId, event, at);
      if (state.mode === 'lose-reply') throw refused();
      return result;
    },
    async renewLease(runId) {
      if (state.mode !== 'up') throw refused();
      return memory.renewLease(runId);
    },
    async finish(runId) {
      if (state.finishDown || state.mode !== 'up') throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      return memory.finish(runId);
    },
  };
  let pending: 'refuse' | 'lose-reply' = 'refuse';
  const failFrom = (delta: number, mode: 'refuse' | 'lose-reply', recoverAfter = Infinity) => {
    state.failAtDelta = delta;
    state.recoverAfter = recoverAfter;
    pending = mode;
  };
  return { memory, store, state, failFrom };
}

async function events(store: RunStore, runId: string): Promise<Event[]> {
  const out: StoredEvent[] = [];
  for await (const stored of store.follow(runId, -1)) out.push(stored);
  expect(out.map((s) => s.seq)).toEqual(out.map((_, i) => i));
  return out.map((s) => s.event);
}

async function start(store: RunStore, runner = textRunner(WORDS, { delayMs: 1 })) {
  const { run } = await store.create({ id: `r${Math.random()}`, requestKey: `p:${Math.random()}`, createdAt: Date.now() });
  const errors: unknown[] = [];
  const done = executeRun({ store, runId: run.id, run: (signal) => runner.runner({ signal } as never), prepare: (e) => e, onFinish: async () => {}, onError: (e) => void errors.push(e) });
  return { runId: run.id, done, calls: runner.calls, errors };
}

describe('a store that stops answering mid-run', () => {
  it.each([
    { mode: 'refuse' as const, what: 'refuses three appends' },
    { mode: 'lose-reply' as const, what: 'writes three appends and loses their replies' },
  ])('$what within the grace: every delta stored once, in order, one chat-finish, finished', async ({ mode }) => {
    const { memory, store, failFrom } = faultyStore();
    failFrom(5, mode, 3);
    const run = await start(store);
    await run.done;
    const stored = await events(memory, run.runId);
    expect(textOf(stored)).toBe(WORDS.join(''));
    expect(stored.filter((e) => e.type === 'chat-finish')).toEqual([expect.objectContaining({ haltReason: 'completed' })]);
    expect(stored.at(-1)?.type).toBe('chat-finish');
    expect((await memory.get(run.runId))?.status).toBe('finished');
    expect(run.errors.length).toBeGreaterThan(0);
  });

  it('stays down past the grace: the upstream call is aborted, nothing more is written, and a reader later ends it run_lost (one ending)', async () => {
    const { memory, store, state, failFrom } = faultyStore();
    failFrom(5, 'refuse');
    const run = await start(store);
    await run.done;
    expect(run.calls[0]!.signal.aborted).toBe(true);
    state.mode = 'up';
    await sleep(LIMITS.leaseMs! + 50);
    const stored = await events(memory, run.runId);
    expect(textOf(stored)).toBe(WORDS.slice(0, 5).join(''));
    expect(stored.slice(-2)).toEqual([
      expect.objectContaining({ type: 'error', code: 'run_lost' }),
      expect.objectContaining({ type: 'chat-finish', haltReason: 'error' }),
    ]);
    expect(stored.filter((e) => e.type === 'chat-finish')).toHaveLength(1);
  });

  it.each([
    // 5, or 6 when the heartbeat aborted the upstream call while the append of the sixth delta was
    // between two tries: that next try finds the store back and stores it (once, before the ending).
    { mode: 'refuse' as const, stored: [5, 6] },
    // The given-up append was stored after all: it is there once, and the ending still comes after it whole.
    { mode: 'lose-reply' as const, stored: [6] },
  ])('down past the grace ($mode) and back for the ending: the upstream call is aborted, the run ends store_unavailable once', async ({ mode, stored: kept }) => {
    const { memory, store, state, failFrom } = faultyStore();
    failFrom(5, mode);
    // Back the moment the upstream call is aborted (in its abort event: a polling loop missed the
    // ending's own grace on a loaded machine), to show the ending gets a grace of its own.
    const words = textRunner(WORDS, { delayMs: 1 });
    const runner: typeof words.runner = (input) => {
      input.signal.addEventListener('abort', () => void (state.mode = 'up'), { once: true });
      return words.runner(input);
    };
    const run = await start(store, { runner, calls: words.calls });
    await run.done;
    expect(run.calls[0]!.signal.aborted).toBe(true);
    const stored = await events(memory, run.runId);
    expect(kept.map((n) => WORDS.slice(0, n).join(''))).toContain(textOf(stored));
    expect(stored.slice(-2)).toEqual([
      expect.objectContaining({ type: 'error', code: 'store_unavailable' }),
      expect.objectContaining({ type: 'chat-finish', haltReason: 'error', error: expect.objectContaining({ code: 'store_unavailable' }) }),
    ]);
    expect(stored.filter((e) => e.type === 'chat-finish')).toHaveLength(1);
    expect((await memory.get(run.runId))?.status).toBe('finished');
  });

  it('unreachable while the upstream is silent: the heartbeat sees it and aborts the upstream call', async () => {
    const { store, state } = faultyStore();
    const never = gate();
    const run = await start(store, textRunner(['a', 'b'], { gates: [Promise.resolve(), never.promise] }));
    for (let i = 0; i < 200 && state.deltas === 0; i++) await sleep(5);
    state.mode = 'refuse';
    await run.done;
    expect(run.calls[0]!.signal.aborted).toBe(true);
  });

  it('loses only the finish: the chat-finish is stored, the run is not called lost later, and it ends once', async () => {
    const { memory, store, state } = faultyStore();
    state.finishDown = true;
    const run = await start(store);
    await run.done;
    expect((await memory.get(run.runId))?.status).toBe('running');
    await sleep(LIMITS.leaseMs! + 50);
    const stored = await events(memory, run.runId);
    expect(textOf(stored)).toBe(WORDS.join(''));
    expect(stored.filter((e) => e.type === 'chat-finish' || e.type === 'error')).toEqual([expect.objectContaining({ type: 'chat-finish', haltReason: 'completed' })]);
    expect((await memory.get(run.runId))?.status).toBe('finished');
  });

  it('a run another instance already ended (its lease lapsed while the store was away) is not written to again', async () => {
    const { memory, store, failFrom, state } = faultyStore();
    failFrom(3, 'refuse');
    const run = await start(store);
    // While the owner is cut off, its lease lapses and a reader ends the run run_lost.
    await sleep(LIMITS.leaseMs! + 20);
    const reaped = await events(memory, run.runId);
    state.mode = 'up';
    await run.done;
    expect(await events(memory, run.runId)).toEqual(reaped);
    expect(reaped.filter((e) => e.type === 'chat-finish')).toHaveLength(1);
  });
});
