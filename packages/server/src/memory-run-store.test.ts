import type { Event } from '@parlance/protocol';
import { ParlanceError } from '@parlance/protocol';
import { describe, expect, it, vi } from 'vitest';
import { runStoreConformance } from '../test/run-store-conformance.ts';
import { jsonLength } from './json-length.ts';
import { createMemoryRunStore } from './memory-run-store.ts';

runStoreConformance('memory', { makeStore: (limits) => createMemoryRunStore({ limits }) });

const delta = (text: string): Event => ({ type: 'text-delta', id: 't', delta: text });
const FINISH: Event = { type: 'chat-finish', haltReason: 'completed', usage: {} };
const caught = (p: Promise<unknown>) => p.then(() => 'no error', (e: unknown) => (ParlanceError.isInstance(e) ? e.code : 'not typed'));

describe('memory store byte budgets (issue #26)', () => {
  it('evicts the oldest finished runs past maxFinishedBytes: each answers run_expired (get, follow, append), newer ones stay', async () => {
    const size = jsonLength(delta('x'.repeat(1_000))) + jsonLength(FINISH);
    const store = createMemoryRunStore({ maxFinishedBytes: size * 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { run } = await store.create({ id: `r${i}`, requestKey: `p:${i}`, createdAt: 0 });
      await store.append(run.id, delta('x'.repeat(1_000)));
      await store.append(run.id, FINISH);
      await store.finish(run.id);
      ids.push(run.id);
    }
    expect(store.bytes()).toEqual({ live: 0, finished: size * 2 });
    for (const id of ids.slice(0, 3)) {
      expect(await store.get(id)).toMatchObject({ id, status: 'finished', expired: true });
      expect(await caught((async () => { for await (const _ of store.follow(id, -1)); })())).toBe('run_expired');
      expect(await caught(store.append(id, delta('y')))).toBe('run_expired');
    }
    for (const id of ids.slice(3)) expect(await store.get(id)).toMatchObject({ status: 'finished' });
    expect(await store.get(ids[3]!)).not.toHaveProperty('expired');
    // An evicted run's request key starts a new run (its events are gone, there is nothing to join).
    expect((await store.create({ id: 'again', requestKey: 'p:0', createdAt: 0 })).created).toBe(true);
  });

  it('a reader waiting on a finished run that is evicted mid-replay gets run_expired, not a stream that stops', async () => {
    const store = createMemoryRunStore({ maxFinishedBytes: 60_000 });
    const { run } = await store.create({ id: 'old', requestKey: 'p:old', createdAt: 0 });
    for (let i = 0; i < 1_000; i++) await store.append(run.id, delta('abcdefghij'));
    await store.append(run.id, FINISH);
    await store.finish(run.id);
    const reader = store.follow(run.id, -1)[Symbol.asyncIterator]();
    expect((await reader.next()).value).toMatchObject({ seq: 0 });
    // More finished runs push the old one out while its reader is part way.
    for (let i = 0; i < 3; i++) {
      const { run: r } = await store.create({ id: `n${i}`, requestKey: `p:n${i}`, createdAt: 0 });
      for (let j = 0; j < 500; j++) await store.append(r.id, delta('abcdefghij'));
      await store.append(r.id, FINISH);
      await store.finish(r.id);
    }
    let code = 'none';
    try {
      for (let i = 0; i < 2_000; i++) if ((await reader.next()).done) break;
    } catch (error) {
      code = ParlanceError.isInstance(error) ? error.code : 'not typed';
    }
    expect(code).toBe('run_expired');
  });

  it('holds going runs within maxLiveBytes: the run over it is stopped with run_limit and still ends; new runs wait (503)', async () => {
    const store = createMemoryRunStore({ maxLiveBytes: 10_000 });
    const a = (await store.create({ id: 'a', requestKey: 'p:a', createdAt: 0 })).run;
    const b = (await store.create({ id: 'b', requestKey: 'p:b', createdAt: 0 })).run;
    await store.append(a.id, delta('x'.repeat(6_000)));
    expect(await caught(store.append(b.id, delta('y'.repeat(6_000))))).toBe('run_limit');
    await store.append(b.id, { type: 'error', code: 'run_limit', message: 'memory', retryable: false });
    await store.append(b.id, FINISH);
    await store.finish(b.id);
    await store.append(a.id, delta('x'.repeat(3_000)));
    expect(await caught(store.create({ id: 'c', requestKey: 'p:c', createdAt: 0 }))).toBe('overloaded');
    await store.append(a.id, FINISH);
    await store.finish(a.id);
    expect(store.bytes().live).toBe(0);
    expect((await store.create({ id: 'c', requestKey: 'p:c', createdAt: 0 })).created).toBe(true);
  });

  it('forgets finished runs after retainMs, and their bytes, without a timer', async () => {
    let clock = 0;
    const store = createMemoryRunStore({ now: () => clock, limits: { retainMs: 100 } });
    const { run } = await store.create({ id: 'a', requestKey: 'p:a', createdAt: 0 });
    await store.append(run.id, FINISH);
    await store.finish(run.id);
    expect(store.bytes().finished).toBeGreaterThan(0);
    clock = 500;
    await store.create({ id: 'b', requestKey: 'p:b', createdAt: 0 });
    expect(store.bytes().finished).toBe(0);
    expect(await store.get('a')).toBeUndefined();
  });
});

describe('memory store readers (issue #35)', () => {
  it('a reader that keeps up takes a burst of events in one read: it waits once per burst, not once per event', async () => {
    const store = createMemoryRunStore();
    const { run } = await store.create({ id: 'burst', requestKey: 'p:burst', createdAt: 0 });
    const seen: number[] = [];
    const reading = (async () => {
      for await (const { seq, event } of store.follow(run.id, -1)) {
        seen.push(seq);
        if (event.type === 'chat-finish') return;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Each wait sets one timer (waitForChange): count them while 3 bursts of 200 events are appended
    // the way executeRun does (each append awaited, after the runner's stages: a few promise hops),
    // one burst per turn of the event loop.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    for (let burst = 0; burst < 3; burst++) {
      for (let i = 0; i < 200; i++) {
        for (let hop = 0; hop < 10; hop++) await null;
        await store.append(run.id, delta(`${burst}.${i} `));
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await store.append(run.id, FINISH);
    await reading;
    const waits = timers.mock.calls.length;
    timers.mockRestore();
    expect(seen).toEqual(Array.from({ length: 601 }, (_, i) => i));
    expect(waits).toBeLessThan(20);
  });
});
