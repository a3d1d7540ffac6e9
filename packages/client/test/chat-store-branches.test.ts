import { ParlanceError, type Thread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import type { ChatRecord, PersistAdapter } from '../src/persist.ts';
import { answer, createMockServer, until, type MockRun } from './mock-server.ts';
import { definePersistAdapter } from '../src/define-persist-adapter.ts';

/** A server that answers each run with `a<n>`, and echoes the thread it was sent (plus the answer) in chat-finish, as the real one does. */
function setup(options: { hold?: boolean; persist?: PersistAdapter } = {}) {
  let runs = 0;
  const finish = (run: MockRun) => {
    const id = `a${++runs}`;
    run.push(...answer(id, [`answer ${runs}`]));
    run.finish('completed', { thread: { ...run.body.thread!, messages: [...run.body.thread!.messages, { id, role: 'assistant', parts: [{ type: 'text', text: `answer ${runs}` }] }] } });
  };
  // Frames cut every 7 bytes: mid-frame, mid-JSON.
  const mock = createMockServer({ chunkBytes: 7, onChat: (run) => (options.hold ? undefined : finish(run)) });
  let n = 0;
  const store = new ChatStore({ api: '/api', fetch: mock.fetch, retryDelayMs: 0, threadId: 't', generateId: () => `id${++n}`, ...(options.persist ? { persist: options.persist } : {}) });
  store.schedule = (flush) => queueMicrotask(flush);
  store.connect();
  const ids = () => store.getSnapshot().thread.messages.map((m) => m.id);
  const sent = (i: number) => (mock.requests.filter((r) => r.path === '/api/chat')[i]!.body as { thread: Thread }).thread;
  return { mock, store, ids, sent, finish };
}

function memory(): PersistAdapter & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return Object.assign(definePersistAdapter({ load: (id) => data.get(id), save: (id, record: ChatRecord) => void data.set(id, JSON.stringify(record)) }), { data });
}

describe('ChatStore branches', () => {
  it('regenerate keeps the old answer as a sibling; only the active path is sent; switching brings it back', async () => {
    const { store, ids, sent } = setup();
    await store.send('hi');
    expect(ids()).toEqual(['id1', 'a1']);
    await store.regenerate();
    expect(ids()).toEqual(['id1', 'a2']);
    expect(sent(1).messages.map((m) => m.id)).toEqual(['id1']);
    expect(sent(1)).not.toHaveProperty('branches');
    expect(store.siblings('a2')).toEqual({ index: 1, count: 2 });
    store.switchBranch('a2', 0);
    expect(ids()).toEqual(['id1', 'a1']);
    expect(store.siblings('a1')).toEqual({ index: 0, count: 2 });
    // A message sent now continues the shown version.
    await store.send('more');
    expect(sent(2).messages.map((m) => m.id)).toEqual(['id1', 'a1', expect.any(String)]);
    expect(store.siblings('a1')).toEqual({ index: 0, count: 2 });
  });

  it('edit sends a new version of a user message and keeps the old one with what followed', async () => {
    const { store, ids, sent } = setup();
    await store.send('first');
    await store.send('second');
    expect(ids()).toEqual(['id1', 'a1', 'id3', 'a2']);
    await store.edit('id3', 'second, edited');
    const edited = ids()[2]!;
    expect(ids()).toEqual(['id1', 'a1', edited, 'a3']);
    expect(sent(2).messages.map((m) => m.parts)).toEqual([[{ type: 'text', text: 'first' }], [{ type: 'text', text: 'answer 1' }], [{ type: 'text', text: 'second, edited' }]]);
    expect(store.siblings(edited)).toEqual({ index: 1, count: 2 });
    store.switchBranch(edited, 0);
    expect(ids()).toEqual(['id1', 'a1', 'id3', 'a2']);
    await expect(store.edit('a1', 'no')).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('refuses to edit, regenerate or switch while a response streams, with a typed error', async () => {
    const { store, mock, ids, finish } = setup({ hold: true });
    void store.send('hi');
    await until(() => mock.runs.length === 1);
    finish(mock.runs[0]!);
    await store.idle();
    void store.regenerate();
    await until(() => mock.runs.length === 2);
    expect(() => store.switchBranch('id1', 0)).toThrowError(expect.objectContaining({ code: 'busy' }));
    await expect(store.regenerate()).rejects.toBeInstanceOf(ParlanceError);
    await expect(store.edit('id1', 'x')).rejects.toMatchObject({ code: 'busy' });
    finish(mock.runs[1]!);
    await store.idle();
    expect(ids()).toEqual(['id1', 'a2']);
    expect(store.siblings('a2')).toEqual({ index: 1, count: 2 });
  });

  it('persists the whole tree: a reloaded chat shows the same versions and can switch', async () => {
    const persist = memory();
    const { store } = setup({ persist });
    await store.send('hi');
    await store.regenerate();
    await store.regenerate();
    await store.persisted();
    const stored = JSON.parse(persist.data.get('t')!) as ChatRecord;
    expect(stored.thread.branches?.id1?.others.map((v) => v.map((m) => m.id))).toEqual([['a1'], ['a2']]);
    const reloaded = new ChatStore({ api: '/api', fetch: () => Promise.reject(new Error('offline')), threadId: 't', persist });
    reloaded.connect();
    await until(() => reloaded.getSnapshot().status === 'ready');
    expect(reloaded.siblings('a3')).toEqual({ index: 2, count: 3 });
    reloaded.switchBranch('a3', 0);
    expect(reloaded.getSnapshot().thread.messages.map((m) => m.id)).toEqual(['id1', 'a1']);
  });

  it('a reload while a regenerated answer streams resumes it and keeps the old version', async () => {
    const persist = memory();
    const mock = createMockServer({
      chunkBytes: 5,
      onChat: (run) => {
        if (run.id !== 'run_1') return run.push(...answer('a2', ['tw', 'o']).slice(0, 4));
        run.push(...answer('a1', ['one']));
        run.finish();
      },
    });
    let n = 0;
    const options = { api: '/api', fetch: mock.fetch, retryDelayMs: 0, threadId: 't', generateId: () => `id${++n}`, persist };
    const store = new ChatStore(options);
    const disconnect = store.connect();
    await until(() => store.getSnapshot().status === 'ready');
    await store.send('hi');
    void store.regenerate();
    await until(() => store.getMessage('a2')?.parts.length === 1);
    await store.persisted();
    disconnect();
    const reloaded = new ChatStore(options);
    reloaded.connect();
    await until(() => mock.runs[1]!.connections === 1 && reloaded.getSnapshot().status === 'streaming');
    mock.runs[1]!.push(...answer('a2', ['tw', 'o']).slice(4));
    mock.runs[1]!.finish('completed', { thread: { version: 2, id: 't', messages: [...mock.runs[1]!.body.thread!.messages, { id: 'a2', role: 'assistant', parts: [{ type: 'text', text: 'two' }] }] } });
    await reloaded.idle();
    expect(reloaded.getSnapshot().thread.messages.map((m) => m.id)).toEqual(['id1', 'a2']);
    expect(reloaded.siblings('a2')).toEqual({ index: 1, count: 2 });
    reloaded.switchBranch('a2', 0);
    expect(reloaded.getSnapshot().thread.messages.map((m) => m.id)).toEqual(['id1', 'a1']);
  });
});
