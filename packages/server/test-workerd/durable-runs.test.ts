// Durable runs on Durable Objects, in workerd: the run executes in its object (`parlanceRunObject`),
// not in the Worker request that started it; its events are stored in the object's storage as they
// happen, and when the object is reset mid-run (as an eviction, a deploy or a crash reset it) its
// alarm continues the run from its last checkpoint. What must hold, as on Redis: the exact text of an
// uninterrupted run, a tool that is not idempotent run at most once (a spy), readers see one stream
// with one ending.
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { INTERRUPTED_RESULT } from '@parlance/engine';
import { createFoldState, type Event, foldEvents, type Message } from '@parlance/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createDurableObjectRunStore, type RunObjectNamespace } from '../src/durable-objects/index.ts';
import { createParlanceApp } from '../src/index.ts';
import { durableOptions, FILLER, toolStarts, tools } from './durable-runs-worker.ts';
import { type Frame, sseFrames } from './sse-frames.ts';

const binding = (env as unknown as { PARLANCE_DURABLE_RUNS: DurableObjectNamespace }).PARLANCE_DURABLE_RUNS;
const LEASE_MS = 2_000;
let n = 0;
/** What the Worker apps reported: a reader that lost its object for a moment reports nothing, it asks again. */
const errors: unknown[] = [];

afterEach(() => {
  tools.hang = false;
  expect(errors).toEqual([]);
});

/** A Worker app on its own object (a name per test), as every Worker isolate would build it. */
function worker() {
  const name = `durable-${++n}`;
  const store = createDurableObjectRunStore({ namespace: binding as unknown as RunObjectNamespace, name, runInObject: true, limits: { leaseMs: LEASE_MS } });
  const app = createParlanceApp({ ...durableOptions, store, onError: (error) => void errors.push(error) });
  // A fresh stub per use: a stub whose object was reset stays broken.
  return { app, object: () => binding.get(binding.idFromName(`${name}-0`)) };
}

function post(app: ReturnType<typeof worker>['app'], text: string) {
  const body = { clientRequestId: `durable_${++n}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] };
  return app.request('/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const user: Message = { id: 'u1', role: 'user', parts: [{ type: 'text', text: '' }] };
/** What a client shows after folding these events: the text of every assistant message. */
function shownText(events: Event[]): string {
  return foldEvents(events, createFoldState([user]))
    .messages.filter((m) => m.role === 'assistant')
    .flatMap((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')))
    .join('');
}

/** One reader's whole stream: every sequence once, in order, exactly one ending, completed. */
function expectOneStream(read: Frame[]) {
  expect(read.map((f) => Number(f.id))).toEqual(read.map((_, i) => i));
  expect(read.filter((f) => f.event.type === 'chat-finish')).toHaveLength(1);
  expect(read.at(-1)!.event).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
}

async function readUntil(frames: AsyncGenerator<Frame>, until: (seen: Event[]) => boolean): Promise<Frame[]> {
  const seen: Frame[] = [];
  // By hand, not for-await: leaving a for-await loop would close the stream.
  for (;;) {
    const { done, value } = await frames.next();
    if (done) throw new Error('The stream ended early');
    seen.push(value);
    if (until(seen.map((f) => f.event))) return seen;
  }
}

async function rest(frames: AsyncGenerator<Frame>): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const frame of { [Symbol.asyncIterator]: () => frames }) out.push(frame);
  return out;
}

const deltasOfStep = (step: number) => (seen: Event[]) => {
  const at = seen.findIndex((e) => e.type === 'step-start' && e.step === step);
  return at >= 0 && seen.slice(at).filter((e) => e.type === 'text-delta').length >= 3;
};

/** Resets the object as an eviction or a deploy would: its instance is gone, its storage stays. */
async function resetObject(stub: DurableObjectStub) {
  await runInDurableObject(stub, (_instance, state) => state.abort('evicted by the test')).catch(() => {});
}

async function uninterrupted(text: string): Promise<string> {
  const { app } = worker();
  const read = await rest(sseFrames(await post(app, text)));
  expectOneStream(read);
  return shownText(read.map((f) => f.event));
}

describe('a run outlives its Durable Object instance (workerd)', () => {
  it('runs in the object: the Worker request only reads, and the object stores every event', async () => {
    const { app, object } = worker();
    const res = await post(app, 'text');
    const runId = res.headers.get('x-parlance-run-id')!;
    const read = await rest(sseFrames(res));
    expectOneStream(read);
    expect(shownText(read.map((f) => f.event))).toBe(FILLER.join(''));
    const stored = await runInDurableObject(object(), async (_instance, state) => [...(await state.storage.list({ prefix: `e:${runId}:` })).values()]);
    expect(stored.map((json) => JSON.parse(json as string))).toEqual(read.map((f) => f.event));
  });

  it('reset in the middle of a model step: the alarm continues it, one step-restarted, the exact text, one ending for every reader', async () => {
    const expected = await uninterrupted('text');
    const { app, object } = worker();
    const res = await post(app, 'text');
    const runId = res.headers.get('x-parlance-run-id')!;
    const first = sseFrames(res);
    const seen = await readUntil(first, deltasOfStep(0));
    await resetObject(object());
    // The first reader keeps reading through the reset; a second one resumes from the last id it got.
    const [more, resumed] = await Promise.all([
      rest(first),
      Promise.resolve(app.request(`/runs/${runId}/events`, { headers: { 'Last-Event-ID': seen.at(-1)!.id } })).then((r) => rest(sseFrames(r))),
    ]);
    const readA = [...seen, ...more];
    const readB = [...seen, ...resumed];
    for (const read of [readA, readB]) expectOneStream(read);
    const events = readA.map((f) => f.event);
    expect(readB.map((f) => f.event)).toEqual(events);
    expect(events.filter((e) => e.type === 'step-restarted')).toEqual([expect.objectContaining({ step: 0, reason: 'takeover' })]);
    expect(shownText(events)).toBe(expected);
  });

  it('reset in the middle of a tool call that is not idempotent, with nobody reading: the alarm continues it, the tool is not run again', async () => {
    tools.hang = true;
    const { app, object } = worker();
    const before = toolStarts.length;
    const res = await post(app, 'tool=add');
    const runId = res.headers.get('x-parlance-run-id')!;
    const first = sseFrames(res);
    await readUntil(first, () => toolStarts.length > before);
    await first.return(undefined);
    await resetObject(object());
    tools.hang = false;
    // Nobody reads: the alarm the object keeps set while runs go on wakes it and continues the run.
    await runDurableObjectAlarm(object());
    const read = await rest(sseFrames(await app.request(`/runs/${runId}/events`)));
    expectOneStream(read);
    const events = read.map((f) => f.event);
    expect(toolStarts.slice(before)).toEqual(['add:call_add']);
    expect(events.filter((e) => e.type === 'tool-result')).toEqual([expect.objectContaining({ toolCallId: 'call_add', output: INTERRUPTED_RESULT, isError: true })]);
    expect(shownText(events)).toContain('interrupted: not run again');
  });

  it('reset in the middle of an idempotent tool call: run again with the same call id, the exact text', async () => {
    const expected = await uninterrupted('tool=add_idempotent');
    tools.hang = true;
    const { app, object } = worker();
    const before = toolStarts.length;
    const res = await post(app, 'tool=add_idempotent');
    const first = sseFrames(res);
    const seen = await readUntil(first, () => toolStarts.length > before);
    await resetObject(object());
    tools.hang = false;
    const read = [...seen, ...(await rest(first))];
    expectOneStream(read);
    expect(toolStarts.slice(before)).toEqual(['add_idempotent:call_add', 'add_idempotent:call_add']);
    expect(shownText(read.map((f) => f.event))).toBe(expected);
  });
});
