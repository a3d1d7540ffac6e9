import { ParlanceError } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { chatRequest, gate, readAll, textOf, textRunner, userThread } from '../test/helpers.ts';
import { createParlanceApp } from './handler.ts';
import { createMemoryRunStore } from './memory-run-store.ts';
import type { RunStore } from './run-store.ts';

const models = [{ id: 'mock:echo', provider: 'mock' }];

describe('run limits', () => {
  it('refuses a run over maxRunning with 503 and Retry-After, while the running ones go on', async () => {
    const g = gate();
    const { runner, calls } = textRunner(['held'], { gates: [g.promise] });
    const app = createParlanceApp({ run: runner, models, store: createMemoryRunStore({ limits: { maxRunning: 1 } }) });
    const first = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'a' }));
    const refused = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'b' }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('overloaded');
    g.open();
    expect(textOf((await readAll(first)).map((f) => f.data))).toBe('held');
    expect(calls).toHaveLength(1);
    // Room again once it finished; the finished run is still there to resume.
    const third = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'c' }));
    expect(third.status).toBe(200);
    await readAll(third);
    const again = await app.request(`/runs/${first.headers.get('x-parlance-run-id')}/events`);
    expect(textOf((await readAll(again)).map((f) => f.data))).toBe('held');
  });

  it('stops a run past its size limit: the upstream is aborted, the client gets run_limit and what came before', async () => {
    const { runner, calls } = textRunner(Array.from({ length: 50 }, (_, i) => `w${i} `), { delayMs: 1 });
    const app = createParlanceApp({ run: runner, models, store: createMemoryRunStore({ limits: { maxEventsPerRun: 10 } }) });
    const frames = await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'big' })));
    const events = frames.map((f) => f.data!);
    expect(events).toHaveLength(12);
    expect(textOf(events)).toBe('w0 w1 w2 w3 w4 w5 w6 ');
    expect(events.at(-2)).toMatchObject({ type: 'error', code: 'run_limit' });
    expect(events.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'error', error: { code: 'run_limit' } });
    expect(calls[0]!.signal.aborted).toBe(true);
  });

  it('stops a run at maxRunMs, aborting an upstream that never ends', async () => {
    const g = gate();
    const { runner, calls } = textRunner(['never'], { gates: [g.promise] });
    const app = createParlanceApp({ run: runner, models, store: createMemoryRunStore({ limits: { maxRunMs: 50 } }) });
    const events = (await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'slow' })))).map((f) => f.data!);
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'error', error: { code: 'run_limit' } });
    expect(events.filter((e) => e.type === 'chat-finish')).toHaveLength(1);
  });
});

describe('onError', () => {
  it('gets what the client is not shown: a runner exception, a failing onFinish, a 500', async () => {
    const seen: { error: unknown; runId?: string }[] = [];
    const app = createParlanceApp({
      models: (env) => (env.BROKEN ? (() => { throw new Error('db password=hunter2'); })() : models),
      env: {},
      onError: (error, context) => void seen.push({ error, runId: context.runId }),
      onFinish: () => {
        throw new Error('disk full');
      },
      async *run() {
        yield { type: 'message-start' };
        throw new Error('socket hang up at 10.0.0.7');
      },
    });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'e' }));
    const events = (await readAll(res)).map((f) => f.data!);
    expect(events.at(-2)).toEqual({ type: 'error', code: 'server_error', message: 'Internal error', retryable: true });
    expect(JSON.stringify(events)).not.toContain('10.0.0.7');
    expect(seen.map((s) => (s.error as Error).message)).toEqual(['socket hang up at 10.0.0.7']);
    expect(seen[0]!.runId).toBe(res.headers.get('x-parlance-run-id'));

    const broken = createParlanceApp({
      models: () => {
        throw new Error('db password=hunter2');
      },
      run: textRunner(['x']).runner,
      onError: (error) => void seen.push({ error }),
    });
    expect((await broken.request('/models')).status).toBe(500);
    expect((seen.at(-1)!.error as Error).message).toBe('db password=hunter2');

    const finishing = createParlanceApp({ models, run: textRunner(['x']).runner, onFinish: () => Promise.reject(new Error('disk full')), onError: (error) => void seen.push({ error }) });
    await readAll(await finishing.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'f' })));
    expect((seen.at(-1)!.error as Error).message).toBe('disk full');
  });

  it('ends a run whose runner throws before returning its stream: one error, one chat-finish, finished for resume and retries', async () => {
    const seen: unknown[] = [];
    let calls = 0;
    const app = createParlanceApp({
      models,
      onError: (error) => void seen.push(error),
      run: () => {
        calls++;
        throw new Error('config at /etc/secret.json unreadable');
      },
    });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 's' }));
    const events = (await readAll(res)).map((f) => f.data!);
    expect(events).toEqual([
      { type: 'error', code: 'server_error', message: 'Internal error', retryable: true },
      { type: 'chat-finish', haltReason: 'error', usage: {} },
    ]);
    expect(seen.map((e) => (e as Error).message)).toEqual(['config at /etc/secret.json unreadable']);
    // The run is finished in the store: resuming replays the same end, and a retry joins it without running again.
    const resumed = await app.request(`/runs/${res.headers.get('x-parlance-run-id')}/events`);
    expect((await readAll(resumed)).map((f) => f.data)).toEqual(events);
    const retried = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 's' }));
    expect(retried.headers.get('x-parlance-run-id')).toBe(res.headers.get('x-parlance-run-id'));
    expect((await readAll(retried)).map((f) => f.data)).toEqual(events);
    expect(calls).toBe(1);

    // A typed refusal thrown synchronously reaches the client as it is.
    const refusing = createParlanceApp({
      models,
      onError: (error) => void seen.push(error),
      run: () => {
        throw new ParlanceError('permission', 'Not for you', { status: 403 });
      },
    });
    const refused = (await readAll(await refusing.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'p' })))).map((f) => f.data!);
    expect(refused[0]).toMatchObject({ type: 'error', code: 'permission', message: 'Not for you' });
    expect(refused.filter((e) => e.type === 'chat-finish')).toEqual([{ type: 'chat-finish', haltReason: 'error', usage: {} }]);
    expect((seen.at(-1) as ParlanceError).code).toBe('permission');
  });

  it('answers 503 store_unavailable when the store cannot be reached, and reports the cause', async () => {
    const seen: unknown[] = [];
    const down = new Error('connect ECONNREFUSED 127.0.0.1:6379');
    const memory = createMemoryRunStore();
    const store: RunStore = { ...memory, create: () => Promise.reject(down), get: () => Promise.reject(down) };
    const app = createParlanceApp({ models, run: textRunner(['x']).runner, store, onError: (error) => void seen.push(error) });
    for (const res of [
      await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'd' })),
      await app.request('/runs/run_1/events'),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ error: { code: 'store_unavailable', message: 'The run store is not available' } });
    }
    expect((seen[0] as Error).cause).toBe(down);
  });
});

describe('store failure during a stream', () => {
  it('ends the stream with a typed store_unavailable frame (no id), keeping the events already sent', async () => {
    const memory = createMemoryRunStore();
    const seen: unknown[] = [];
    const store: RunStore = {
      ...memory,
      async *follow(runId, afterSeq, signal) {
        for await (const stored of memory.follow(runId, afterSeq, signal)) {
          yield stored;
          if (stored.event.type === 'text-delta') throw new Error('READONLY You can\'t write against a read only replica');
        }
      },
    };
    const app = createParlanceApp({ models, run: textRunner(['kept', ' more']).runner, store, onError: (error) => void seen.push(error) });
    const frames = await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'gone' })));
    expect(textOf(frames.map((f) => f.data))).toBe('kept');
    expect(frames.at(-1)).toEqual({ data: { type: 'error', code: 'store_unavailable', message: 'The run store is not available', retryable: true } });
    expect(frames.slice(0, -1).every((f) => f.id !== undefined)).toBe(true);
    expect(JSON.stringify(frames)).not.toContain('READONLY');
    expect((seen[0] as Error).message).toMatch(/READONLY/);
  });
});
