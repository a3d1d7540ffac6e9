import { ParlanceError, createThread, type Event, type Thread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore, type ChatOptions } from '../src/chat-store.ts';
import { answer, createMockServer, pausedTurn, until, type MockRun, type MockServerOptions } from './mock-server.ts';
import { definePersistAdapter } from '../src/define-persist-adapter.ts';

function setup(server: MockServerOptions = {}, options: Partial<ChatOptions> = {}) {
  const mock = createMockServer(server);
  let n = 0;
  const store = new ChatStore({ api: '/api', fetch: mock.fetch, retryDelayMs: 0, threadId: 't', generateId: () => `id${++n}`, ...options });
  store.schedule = (flush) => queueMicrotask(flush);
  store.connect();
  const text = (id: string) => store.getMessage(id)?.parts.map((p) => ('text' in p ? p.text : '')).join('');
  return { mock, store, text };
}

describe('ChatStore', () => {
  it('sends a message and folds the streamed answer, multibyte text cut anywhere', async () => {
    const deltas = ['héllo ', 'wörld ', '😀', ' ✓'];
    const { mock, store, text } = setup({ chunkBytes: 3, onChat: (run) => (run.push(...answer('a1', deltas)), run.finish()) });
    await store.send('hi');
    const s = store.getSnapshot();
    expect(s.status).toBe('ready');
    expect(s.haltReason).toBe('completed');
    expect(s.thread.messages.map((m) => [m.id, m.role])).toEqual([['id1', 'user'], ['a1', 'assistant']]);
    expect(text('a1')).toBe(deltas.join(''));
    const body = mock.requests[0]!.body as { thread: Thread; clientRequestId: string };
    expect(body.thread.messages[0]!.parts).toEqual([{ type: 'text', text: 'hi' }]);
    expect(body.clientRequestId).toBeTruthy();
  });

  it.each(['close', 'error'] as const)('resumes with Last-Event-ID after the connection drops (%s), no text lost or doubled', async (mode) => {
    const deltas = Array.from({ length: 20 }, (_, i) => `w${i} `);
    const events = answer('a1', deltas);
    const { mock, store, text } = setup({ onChat: (run) => run.push(...events.slice(0, 8)) });
    const done = store.send('go');
    await until(() => mock.runs[0]?.connections === 1 && store.getSnapshot().run?.lastEventId === '7');
    const run = mock.runs[0]!;
    run.drop(mode);
    run.push(...events.slice(8, 15));
    await until(() => run.connections === 1);
    run.push(...events.slice(15));
    run.finish();
    await done;
    expect(text('a1')).toBe(deltas.join(''));
    const resume = mock.requests.find((r) => r.path === '/api/runs/run_1/events')!;
    expect(resume.headers['last-event-id']).toBe('7');
  });

  it('stop() cancels through the cancel route and keeps the partial answer', async () => {
    const { mock, store, text } = setup({ onChat: (run) => run.push(...answer('a1', ['par', 'tial']).slice(0, 5)) });
    void store.send('go');
    await until(() => text('a1') === 'partial');
    await store.stop();
    expect(mock.requests.some((r) => r.method === 'POST' && r.path === '/api/runs/run_1/cancel')).toBe(true);
    expect(store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'cancelled' });
    expect(text('a1')).toBe('partial');
  });

  it('stop() before the run is named cancels it as soon as it starts', async () => {
    const { mock, store } = setup({ onChat: (run) => run.push({ type: 'step-start', step: 0 }) });
    void store.send('go');
    expect(store.getSnapshot().status).toBe('submitted');
    await store.stop();
    expect(mock.runs[0]!.cancelled).toBe(true);
    expect(store.getSnapshot().haltReason).toBe('cancelled');
  });

  it('queues a message sent while streaming and sends it after the answer (default)', async () => {
    const { mock, store } = setup({ onChat: (run) => run.push(...answer(`a-${run.id}`, ['one'])) });
    void store.send('first');
    await until(() => mock.runs.length === 1);
    const done = store.send('second');
    expect(store.getSnapshot().queue.map((m) => m.parts)).toEqual([[{ type: 'text', text: 'second' }]]);
    mock.runs[0]!.finish();
    await until(() => mock.runs.length === 2);
    mock.runs[1]!.finish();
    await done;
    const second = mock.requests.filter((r) => r.path === '/api/chat')[1]!.body as { thread: Thread };
    expect(second.thread.messages.map((m) => m.id)).toEqual(['id1', 'a-run_1', 'id3']);
    expect(store.getSnapshot().queue).toEqual([]);
    expect(store.getSnapshot().thread.messages.map((m) => m.id)).toEqual(['id1', 'a-run_1', 'id3', 'a-run_2']);
  });

  it("'interrupt' cancels the current answer, keeps it, then sends the new message", async () => {
    const { mock, store, text } = setup({ onChat: (run) => run.push(...answer(`a-${run.id}`, ['cut']).slice(0, 4)) }, { sendMode: 'interrupt' });
    void store.send('first');
    await until(() => text('a-run_1') === 'cut');
    const done = store.send('second');
    await until(() => mock.runs.length === 2);
    expect(mock.runs[0]!.cancelled).toBe(true);
    mock.runs[1]!.finish();
    await done;
    expect(store.getSnapshot().thread.messages.map((m) => m.id)).toEqual(['id1', 'a-run_1', 'id3', 'a-run_2']);
    expect(text('a-run_1')).toBe('cut');
  });

  it('turns an HTTP error into a typed error, keeps the message, and retry() sends again', async () => {
    let fail = true;
    const errors: string[] = [];
    const { mock, store } = setup(
      { chatError: () => (fail ? { status: 429, code: 'rate_limited', message: 'slow down' } : undefined), onChat: (run) => run.finish() },
      { onError: (e) => errors.push(e.code) },
    );
    await store.send('hi');
    expect(store.getSnapshot()).toMatchObject({ status: 'error', error: { code: 'rate_limited', message: 'slow down', status: 429 } });
    expect(errors).toEqual(['rate_limited']);
    fail = false;
    await store.retry();
    expect(store.getSnapshot().status).toBe('ready');
    expect((mock.requests.at(-1)!.body as { thread: Thread }).thread.messages).toHaveLength(1);
  });

  it('reports an unknown run on resume as not_found, keeping what arrived', async () => {
    const { mock, store, text } = setup({ onChat: (run) => run.push(...answer('a1', ['kept']).slice(0, 4)) });
    void store.send('go');
    await until(() => text('a1') === 'kept');
    // The server forgot the run, then the connection drops: the resume is a 404.
    const run = mock.runs.splice(0)[0]!;
    run.drop();
    await store.idle();
    expect(store.getSnapshot()).toMatchObject({ status: 'error', error: { code: 'not_found', status: 404 } });
    expect(text('a1')).toBe('kept');
  });

  it('runs client tools in the browser and sends their results back in one resume', async () => {
    const calls: unknown[] = [];
    const turn = (run: MockRun) => {
      if (run.body.resume) return run.push(...answer('a2', ['sunny'])), run.finish();
      run.push(...pausedTurn('a1', [{ kind: 'client-tool', toolCallId: 'c1', name: 'weather', input: { city: 'Oslo' } }]));
      run.finish('client-tool-calls');
    };
    const { mock, store } = setup({ onChat: turn }, { tools: { weather: (input) => (calls.push(input), { temp: 21 }) } });
    await store.send('weather?');
    await until(() => mock.runs.length === 2 && store.getSnapshot().haltReason === 'completed');
    expect(calls).toEqual([{ city: 'Oslo' }]);
    expect(mock.runs[1]!.body.resume).toEqual({ toolResults: [{ toolCallId: 'c1', output: { temp: 21 } }], approvals: [], answers: [] });
  });

  it('waits for approve/deny/answer, then continues with all of them', async () => {
    const { mock, store } = setup({
      onChat: (run) => {
        if (run.body.resume) return run.finish();
        run.push(...pausedTurn('a1', [{ kind: 'approval', toolCallId: 'c1', name: 'delete', input: { path: '/' } }, { kind: 'ask-user', toolCallId: 'c2', question: 'Why?' }]));
        run.finish('approval');
      },
    });
    await store.send('clean up');
    expect(store.getSnapshot().pending.map((p) => [p.kind, p.toolCallId])).toEqual([['approval', 'c1'], ['ask-user', 'c2']]);
    void store.deny('c1', 'too risky');
    expect(mock.runs).toHaveLength(1);
    await store.answer('c2', 'tidy');
    await until(() => mock.runs.length === 2);
    expect(mock.runs[1]!.body.resume).toEqual({ toolResults: [], approvals: [{ toolCallId: 'c1', approved: false, reason: 'too risky' }], answers: [{ toolCallId: 'c2', answer: 'tidy' }] });
  });

  const halts: Record<string, { events: Event[]; halt: 'approval' | 'ask-user' | 'client-tool-calls' }> = {
    approval: { events: pausedTurn('a1', [{ kind: 'approval', toolCallId: 'c1', name: 'delete' }]), halt: 'approval' },
    'ask-user': { events: pausedTurn('a1', [{ kind: 'ask-user', toolCallId: 'c1', question: 'Sure?' }]), halt: 'ask-user' },
    'client-tool-calls': { events: pausedTurn('a1', [{ kind: 'client-tool', toolCallId: 'c1', name: 'pick' }]), halt: 'client-tool-calls' },
  };
  it.each([
    ['approve', 'approval', (store: ChatStore) => store.approve('c1')],
    ['deny', 'approval', (store: ChatStore) => store.deny('c1', 'no')],
    ['answer', 'ask-user', (store: ChatStore) => store.answer('c1', 'yes')],
    ['submitToolResult', 'client-tool-calls', (store: ChatStore) => store.submitToolResult('c1', { ok: true })],
  ] as const)('%s() called right after send() resolves returns only when the resumed run has finished', async (_, kind, respond) => {
    const { events, halt } = halts[kind]!;
    const { mock, store, text } = setup({
      onChat: (run) => {
        if (run.body.resume) {
          // The resumed run streams a little later, so a promise that does not wait for it resolves first.
          setTimeout(() => (run.push(...answer('a2', ['resumed ', 'answer'])), run.finish()), 5);
          return;
        }
        run.push(...events);
        run.finish(halt);
      },
    });
    await store.send('clean up');
    expect(store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: halt });
    await respond(store);
    expect(mock.runs).toHaveLength(2);
    expect(mock.runs[1]!.body.resume).toBeTruthy();
    expect(text('a2')).toBe('resumed answer');
    expect(store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'completed', pending: [] });
  });

  it('a thread paused before a reload (its pause saved in the thread) is answered after it, with the saved thread', async () => {
    const paused = createThread('t', [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'pay' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 'c1', name: 'pay', input: { amount: 5 }, signature: 'p1.k.sig' }],
        pause: { waitingFor: [{ kind: 'approval', toolCallId: 'c1', name: 'pay', input: { amount: 5 } }], signature: 'p1.k.pause' },
      },
    ]);
    const { mock, store } = setup({ onChat: (run) => run.finish() }, { initialThread: paused });
    expect(store.getSnapshot().pending).toEqual([{ kind: 'approval', toolCallId: 'c1', name: 'pay', input: { amount: 5 } }]);
    await store.approve('c1');
    expect(mock.runs[0]!.body.resume).toEqual({ toolResults: [], approvals: [{ toolCallId: 'c1', approved: true }], answers: [] });
    // The thread goes back as saved: signatures and pause included, for the server to verify.
    expect(mock.runs[0]!.body.thread).toEqual(paused);
  });

  it('a response that still waits for another input resolves at once; the last one waits for the resumed run', async () => {
    const { mock, store, text } = setup({
      onChat: (run) => {
        if (run.body.resume) return void setTimeout(() => (run.push(...answer('a2', ['done'])), run.finish()), 5);
        run.push(...pausedTurn('a1', [{ kind: 'approval', toolCallId: 'c1', name: 'delete' }, { kind: 'approval', toolCallId: 'c2', name: 'move' }]));
        run.finish('approval');
      },
    });
    await store.send('go');
    await store.approve('c1');
    expect(mock.runs).toHaveLength(1);
    expect(store.getSnapshot().pending).toHaveLength(2);
    await store.approve('c2');
    expect(text('a2')).toBe('done');
    expect(store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'completed' });
  });

  it('a call id the server lists twice as pending is answered once, without crashing the resume', async () => {
    const { mock, store } = setup({
      onChat: (run) => {
        if (run.body.resume) return run.finish();
        run.push(
          { type: 'message-start', messageId: 'a1' },
          { type: 'tool-call-start', id: 'c1', name: 'delete' },
          { type: 'tool-call-end', id: 'c1', input: {} },
          { type: 'run-paused', waitingFor: [{ kind: 'approval', toolCallId: 'c1', name: 'delete' }, { kind: 'ask-user', toolCallId: 'c1', name: 'delete', question: 'Sure?' }] },
        );
        run.finish('approval');
      },
    });
    await store.send('go');
    await store.answer('c1', 'yes');
    expect(mock.runs[1]!.body.resume).toEqual({ toolResults: [], approvals: [], answers: [{ toolCallId: 'c1', answer: 'yes' }] });
    expect(store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'completed' });
  });

  it('send() while the run is paused is refused with run_paused: nothing is sent, queued or saved, and sendBlocked says why', async () => {
    const saved: unknown[] = [];
    const { mock, store } = setup(
      {
        onChat: (run) => {
          if (run.body.resume) return run.push(...answer('a2', ['done'])), run.finish();
          run.push(...pausedTurn('a1', [{ kind: 'approval', toolCallId: 'c1', name: 'delete' }]));
          run.finish('approval');
        },
      },
      { persist: definePersistAdapter({ load: () => undefined, save: (_, record) => void saved.push(structuredClone(record)) }) },
    );
    await until(() => store.getSnapshot().status === 'ready');
    expect(store.getSnapshot().sendBlocked).toBeUndefined();
    await store.send('delete it');
    await store.persisted();
    const before = store.getSnapshot();
    expect(before.sendBlocked).toEqual({ code: 'run_paused', message: 'The run is waiting for an approval', retryable: false });
    const writes = saved.length;
    const refused = await store.send('never mind').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ParlanceError.isInstance(refused) && refused.code).toBe('run_paused');
    expect(store.getSnapshot().thread).toBe(before.thread);
    expect(store.getSnapshot().queue).toEqual([]);
    expect(mock.runs).toHaveLength(1);
    await store.persisted();
    expect(saved).toHaveLength(writes);
    // Once answered, sending works again.
    await store.approve('c1');
    expect(store.getSnapshot().sendBlocked).toBeUndefined();
    await store.send('thanks');
    expect(mock.runs).toHaveLength(3);
  });

  it('a turn refused before its run started keeps its error in the thread; the next send builds on it and retry() asks again', async () => {
    let fail = true;
    const { mock, store } = setup({ chatError: () => (fail ? { status: 529, code: 'overloaded', message: 'busy' } : undefined), onChat: (run) => run.finish() });
    await store.send('first');
    expect(store.getSnapshot().thread.messages).toEqual([
      expect.objectContaining({ id: 'id1', role: 'user' }),
      { id: 'id1-failed', role: 'assistant', parts: [], error: { code: 'overloaded', message: 'busy', status: 529, retryable: true } },
    ]);
    fail = false;
    await store.retry();
    expect((mock.requests.at(-1)!.body as { thread: Thread }).thread.messages.map((m) => m.id)).toEqual(['id1']);
    fail = true;
    await store.send('second');
    fail = false;
    await store.send('third');
    expect((mock.requests.at(-1)!.body as { thread: Thread }).thread.messages.map((m) => m.id)).toEqual(['id1', 'id4', 'id4-failed', 'id6']);
  });

  it('notifies only the streaming message, at most once per flush, and keeps the id list stable', async () => {
    const history = Array.from({ length: 50 }, (_, i) => ({ id: `m${i}`, role: 'user' as const, parts: [{ type: 'text' as const, text: `${i}` }] }));
    const { mock, store } = setup({ onChat: (run) => run.push({ type: 'message-start', messageId: 'a1' }, { type: 'text-start', id: 't' }) }, { initialThread: createThread('t', history) });
    const frames: (() => void)[] = [];
    store.schedule = (flush) => frames.push(flush);
    const counts = new Map<string, number>();
    for (const m of [...history.map((m) => m.id), 'a1']) store.subscribeMessage(m, () => counts.set(m, (counts.get(m) ?? 0) + 1));
    void store.send('go');
    await until(() => mock.runs.length === 1 && frames.length > 0);
    for (const f of frames.splice(0)) f();
    const ids = store.getMessageIds();
    for (let i = 0; i < 100; i++) {
      mock.runs[0]!.push({ type: 'text-delta', id: 't', delta: 'x' });
      if (i % 10 === 9) {
        await new Promise((r) => setTimeout(r, 0));
        for (const f of frames.splice(0)) f();
      }
    }
    expect(counts.get('a1')).toBeLessThanOrEqual(11);
    expect(counts.get('a1')).toBeGreaterThanOrEqual(10);
    expect([...counts.keys()]).toEqual(['a1']);
    expect(store.getMessageIds()).toBe(ids);
    expect(store.getMessage('a1')!.parts[0]).toEqual({ type: 'text', text: 'x'.repeat(100) });
  });
});
