/**
 * The `RunStore` contract as tests: every store's test file is one call of
 * `runStoreConformance` (as each Hono router's test is one call of its common cases).
 * Runs in Node and in workerd, so it uses vitest and Web APIs only.
 */
import { type Event, ParlanceError } from '@parlance/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunLimits, RunStore, StoredEvent } from '../src/run-store.ts';

export interface ConformanceOptions {
  /** A fresh store with these limits (over the store's defaults). */
  makeStore: (limits: Partial<RunLimits>) => RunStore | Promise<RunStore>;
  /** Releases what `makeStore` opened (connections), after the suite. */
  close?: (store: RunStore) => void | Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delta = (text: string): Event => ({ type: 'text-delta', id: 't', delta: text });
const FINISH: Event = { type: 'chat-finish', haltReason: 'completed', usage: {} };

async function collect(source: AsyncIterable<StoredEvent>, limit = 1_000): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const stored of source) {
    out.push(stored);
    if (out.length >= limit) break;
  }
  return out;
}

async function until(check: () => boolean | Promise<boolean>, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`Timed out waiting for ${what}`);
}

function caught(promise: Promise<unknown>): Promise<ParlanceError> {
  return promise.then(
    () => {
      throw new Error('expected a ParlanceError');
    },
    (error: unknown) => {
      expect(ParlanceError.isInstance(error)).toBe(true);
      return error as ParlanceError;
    },
  );
}

export function runStoreConformance(name: string, options: ConformanceOptions): void {
  const opened: RunStore[] = [];
  const store = async (limits: Partial<RunLimits> = {}) => {
    const made = await options.makeStore(limits);
    opened.push(made);
    return made;
  };
  // Unique per suite run, so stores on a shared server (one Redis, one Durable Object) never meet old runs.
  const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  let n = 0;
  const fresh = () => {
    const id = `run_${tag}_${++n}`;
    return { id, requestKey: `p:${id}`, createdAt: Date.now() };
  };
  afterAll(async () => {
    for (const made of opened) await options.close?.(made);
  });

  describe(`RunStore conformance: ${name}`, () => {
    it('creates a run once per request key: a retried request joins the run it started', async () => {
      const s = await store();
      const first = await s.create(fresh());
      expect(first.created).toBe(true);
      expect(first.run).toMatchObject({ status: 'running', requestKey: expect.any(String) });
      const again = await s.create({ ...fresh(), requestKey: first.run.requestKey });
      expect(again).toEqual({ created: false, run: expect.objectContaining({ id: first.run.id, status: 'running' }) });
      expect((await s.get(first.run.id))?.id).toBe(first.run.id);
      expect(await s.get(`${first.run.id}_unknown`)).toBeUndefined();
    });

    it('numbers events from 0 with no gaps, replays after any sequence, and follows live events until the run ends', async () => {
      const s = await store();
      const { run } = await s.create(fresh());
      for (const word of ['a', 'b']) await s.append(run.id, delta(word));
      const live = collect(s.follow(run.id, -1));
      const tail = collect(s.follow(run.id, 0));
      await sleep(30);
      expect((await s.append(run.id, delta('c'))).seq).toBe(2);
      expect((await s.append(run.id, FINISH)).seq).toBe(3);
      await s.finish(run.id);
      expect((await live).map((e) => e.seq)).toEqual([0, 1, 2, 3]);
      expect((await live).map((e) => e.event)).toEqual([delta('a'), delta('b'), delta('c'), FINISH]);
      expect((await tail).map((e) => e.seq)).toEqual([1, 2, 3]);
      expect((await s.get(run.id))?.status).toBe('finished');
      expect(await collect(s.follow(run.id, 3))).toEqual([]);
      // An unknown run is a typed not_found, never a stream that simply ends.
      expect((await caught(collect(s.follow(`${run.id}_unknown`, -1)))).code).toBe('not_found');
    });

    it('finishes a run only once its chat-finish is stored: exactly one ending, or still going', async () => {
      const s = await store();
      const { run } = await s.create(fresh());
      await s.append(run.id, delta('a'));
      await caught(s.finish(run.id));
      expect((await s.get(run.id))?.status).toBe('running');
      await s.append(run.id, { type: 'error', code: 'store_unavailable', message: 'x', retryable: true });
      await caught(s.finish(run.id));
      expect((await s.get(run.id))?.status).toBe('running');
      await s.append(run.id, FINISH);
      await s.finish(run.id);
      expect((await s.get(run.id))?.status).toBe('finished');
      expect((await collect(s.follow(run.id, -1))).map((e) => e.event.type)).toEqual(['text-delta', 'error', 'chat-finish']);
      // After its end the owner writes nothing more: a typed refusal, not a second ending.
      expect((await caught(s.append(run.id, FINISH))).code).toBe('run_lost');
      expect((await caught(s.append(`${run.id}_unknown`, delta('x')))).code).toBe('not_found');
    });

    it('stops following when the reader goes away, and the run goes on', async () => {
      const s = await store();
      const { run } = await s.create(fresh());
      const reader = new AbortController();
      const seen: number[] = [];
      const reading = (async () => {
        for await (const stored of s.follow(run.id, -1, reader.signal)) seen.push(stored.seq);
      })();
      await s.append(run.id, delta('a'));
      await until(() => seen.length === 1, 'the first event');
      reader.abort();
      await reading;
      await s.append(run.id, delta('b'));
      expect(seen).toEqual([0]);
      expect((await collect(s.follow(run.id, -1), 2)).map((e) => e.seq)).toEqual([0, 1]);
    });

    it('passes a cancel to the instance running the run: through renewLease, append and onCancel', async () => {
      const s = await store();
      const { run } = await s.create(fresh());
      let pushed = false;
      const unsubscribe = s.onCancel?.(run.id, () => (pushed = true));
      expect(await s.renewLease(run.id)).toEqual({ cancelled: false });
      expect((await s.append(run.id, delta('a'))).cancelled).toBe(false);
      expect(await s.cancel(`${run.id}_unknown`)).toBeUndefined();
      expect((await s.cancel(run.id))?.status).toBe('running');
      expect(await s.renewLease(run.id)).toEqual({ cancelled: true });
      expect((await s.append(run.id, delta('b'))).cancelled).toBe(true);
      if (unsubscribe) {
        await until(() => pushed, 'onCancel');
        unsubscribe();
      }
    });

    it('stops a run at its event and byte limits with a typed error, and still takes its ending', async () => {
      const s = await store({ maxEventsPerRun: 3, maxBytesPerRun: 1_000 });
      const { run } = await s.create(fresh());
      for (const word of ['a', 'b', 'c']) await s.append(run.id, delta(word));
      const error = await caught(s.append(run.id, delta('d')));
      expect(error.code).toBe('run_limit');
      await s.append(run.id, { type: 'error', code: 'run_limit', message: error.message, retryable: false });
      expect((await s.append(run.id, FINISH)).seq).toBe(4);

      const { run: big } = await s.create(fresh());
      await s.append(big.id, delta('x'.repeat(600)));
      expect((await caught(s.append(big.id, delta('y'.repeat(600))))).code).toBe('run_limit');
      await s.append(big.id, FINISH);
      await s.finish(big.id);
      expect((await collect(s.follow(big.id, -1))).map((e) => e.event.type)).toEqual(['text-delta', 'chat-finish']);
    });

    it('refuses a run over maxRunning with 503 and Retry-After, evicting nothing; a finished run makes room', async () => {
      const s = await store({ maxRunning: 2 });
      const a = (await s.create(fresh())).run;
      const b = (await s.create(fresh())).run;
      const refused = await caught(s.create(fresh()));
      expect(refused).toMatchObject({ code: 'overloaded', status: 503, retryable: true });
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      // A retried request of a running run is not a new run: it joins, even at the cap.
      expect((await s.create({ ...fresh(), requestKey: a.requestKey })).created).toBe(false);
      await s.append(a.id, FINISH);
      await s.finish(a.id);
      expect((await s.create(fresh())).created).toBe(true);
      expect((await s.get(a.id))?.status).toBe('finished');
      expect((await s.get(b.id))?.status).toBe('running');
      expect((await collect(s.follow(a.id, -1))).map((e) => e.event)).toEqual([FINISH]);
      expect(await s.create({ ...fresh(), requestKey: a.requestKey })).toMatchObject({ created: false, run: { id: a.id } });
    });

    it('keeps a finished run resumable for its retention, then forgets it and its request key', async () => {
      const s = await store({ retainMs: 300 });
      const { run } = await s.create(fresh());
      await s.append(run.id, FINISH);
      await s.finish(run.id);
      expect((await s.get(run.id))?.status).toBe('finished');
      await sleep(700);
      await s.create(fresh()); // a lazy store sweeps on create
      expect(await s.get(run.id)).toBeUndefined();
      expect((await s.create({ ...fresh(), requestKey: run.requestKey })).created).toBe(true);
    });

    it('keeps small values for their TTL (the AI SDK route\'s chat -> run map): set, replace, compare-and-delete, expire', async () => {
      const s = await store();
      const key = `chat:${tag}:${++n}`;
      expect(await s.getValue(key)).toBeUndefined();
      await s.setValue(key, '{"runId":"a"}', 60_000);
      expect(await s.getValue(key)).toBe('{"runId":"a"}');
      await s.setValue(key, '{"runId":"b"}', 60_000);
      await s.deleteValue(key, '{"runId":"a"}'); // another instance set it since: kept
      expect(await s.getValue(key)).toBe('{"runId":"b"}');
      await s.deleteValue(key, '{"runId":"b"}');
      expect(await s.getValue(key)).toBeUndefined();
      await s.setValue(key, 'x', 60_000);
      await s.deleteValue(key);
      expect(await s.getValue(key)).toBeUndefined();
      await s.setValue(key, 'short', 100);
      await sleep(250);
      expect(await s.getValue(key)).toBeUndefined();
      expect((await caught(s.setValue(key, 'x'.repeat(1024 * 1024 + 1), 1_000))).code).toBe('invalid_request');
    });

    it('ends a run whose owner stopped renewing its lease with run_lost, keeping what it said; a renewed run lives on', async () => {
      const s = await store({ leaseMs: 300 });
      const { run: lost } = await s.create(fresh());
      const { run: kept } = await s.create(fresh());
      await s.append(lost.id, delta('partial'));
      await s.append(kept.id, delta('alive'));
      for (let i = 0; i < 8; i++) {
        await sleep(75);
        await s.renewLease(kept.id);
      }
      const events = (await collect(s.follow(lost.id, -1))).map((e) => e.event);
      expect(events[0]).toEqual(delta('partial'));
      expect(events.slice(1)).toEqual([
        expect.objectContaining({ type: 'error', code: 'run_lost', retryable: true }),
        expect.objectContaining({ type: 'chat-finish', haltReason: 'error' }),
      ]);
      expect((await s.get(lost.id))?.status).toBe('finished');
      expect((await s.get(kept.id))?.status).toBe('running');
    });
  });
}
