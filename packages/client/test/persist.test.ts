// @vitest-environment jsdom
import 'fake-indexeddb/auto';
import { createThread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import { indexedDbAdapter } from '../src/indexed-db-adapter.ts';
import { localStorageAdapter } from '../src/local-storage-adapter.ts';
import { RECORD_VERSION, loadRecord, type ChatRecord, type PersistAdapter } from '../src/persist.ts';
import { answer, createMockServer, pausedTurn, until } from './mock-server.ts';
import { definePersistAdapter } from '../src/define-persist-adapter.ts';

function open(persist: PersistAdapter, fetch: typeof globalThis.fetch, threadId = 't1') {
  const store = new ChatStore({ api: '/api', fetch, persist, threadId, retryDelayMs: 0 });
  store.schedule = (flush) => queueMicrotask(flush);
  const disconnect = store.connect();
  const text = (id: string) => store.getMessage(id)?.parts.map((p) => ('text' in p ? p.text : '')).join('');
  return { store, disconnect, text };
}

describe.each([
  ['localStorage', () => localStorageAdapter()],
  ['IndexedDB', () => indexedDbAdapter({ name: `db-${Math.random()}` })],
])('persistence (%s)', (_, adapter) => {
  it('round trips a chat through a reload', async () => {
    const persist = adapter();
    const mock = createMockServer({ onChat: (run) => (run.push(...answer('a1', ['saved ', 'answer'])), run.finish()) });
    const first = open(persist, mock.fetch);
    await until(() => first.store.getSnapshot().status === 'ready');
    await first.store.send('remember me');
    await first.store.persisted();
    first.disconnect();

    const second = open(persist, mock.fetch);
    await until(() => second.store.getSnapshot().status === 'ready');
    expect(second.store.getSnapshot().thread).toEqual(first.store.getSnapshot().thread);
    expect(second.text('a1')).toBe('saved answer');
    expect(await persist.list!()).toEqual([expect.objectContaining({ id: 't1', title: 'remember me' })]);
  });

  it('removes a chat: it loads as a tombstone and is gone from the list, and removing it again is no error', async () => {
    const persist = adapter();
    await persist.save('keep', loadRecord(createThread('keep')));
    await persist.save('drop', loadRecord(createThread('drop')));
    await persist.remove!('drop');
    await persist.remove!('drop');
    expect(loadRecord(await persist.load('drop'))).toMatchObject({ deleted: true, revision: 1 });
    const ids = (await persist.list!()).map((t) => t.id);
    expect(ids).toContain('keep');
    expect(ids).not.toContain('drop');
  });

  it('resumes a run after a reload mid-stream with no text doubled or missing, and stop() works on it', async () => {
    const persist = adapter();
    const deltas = Array.from({ length: 30 }, (_, i) => `d${i} `);
    const events = answer('a1', deltas);
    const mock = createMockServer({ onChat: (run) => run.push(...events.slice(0, 12)) });
    const first = open(persist, mock.fetch, 't2');
    await until(() => first.store.getSnapshot().status === 'ready');
    void first.store.send('long answer please');
    await until(() => first.store.getSnapshot().run?.lastEventId === '11');
    await first.store.persisted();
    first.disconnect(); // the page goes away; the run goes on
    const run = mock.runs[0]!;
    run.push(...events.slice(12, 20));

    // Only the thread and the run's cursor are stored, no fold state.
    const stored = await persist.load('t2');
    const record = (typeof stored === 'string' ? JSON.parse(stored) : stored) as ChatRecord;
    expect(record.version).toBe(RECORD_VERSION);
    expect(record.run).toEqual({ runId: 'run_1', lastEventId: '11', after: record.thread.messages[0]!.id });

    const second = open(persist, mock.fetch, 't2');
    // What was saved shows at once, and never shrinks while the run is refolded from its first event.
    const seen: string[] = [];
    second.store.subscribe(() => seen.push(second.text('a1') ?? ''));
    await until(() => second.text('a1') === deltas.slice(0, 17).join(''));
    expect(second.store.getSnapshot().status).toBe('streaming');
    expect(seen.every((t, i) => i === 0 || t.length >= seen[i - 1]!.length)).toBe(true);
    expect(seen.filter((t) => t.length > 0)[0]).toBe(deltas.slice(0, 9).join(''));
    await second.store.stop();
    expect(run.cancelled).toBe(true);
    expect(second.store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'cancelled' });
    expect(second.text('a1')).toBe(deltas.slice(0, 17).join(''));
    expect(second.store.getSnapshot().thread.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    // The resume asks for the run from its start: the fold is rebuilt from the server's events.
    const resumed = mock.requests.find((r) => r.path === '/api/runs/run_1/events')!;
    expect(resumed.headers['last-event-id']).toBeUndefined();
  });

  it('keeps a paused run across a reload: pending, the refusal to send, and the approval resuming the run', async () => {
    const persist = adapter();
    const mock = createMockServer({
      onChat: (run) => {
        if (run.body.resume) return run.push(...answer('a2', ['approved'])), run.finish();
        run.push(...pausedTurn('a1', [{ kind: 'approval', toolCallId: 'c1', name: 'delete', input: { path: '/tmp' } }]));
        run.finish('approval');
      },
    });
    const first = open(persist, mock.fetch, 't3');
    await until(() => first.store.getSnapshot().status === 'ready');
    await first.store.send('clean up');
    await first.store.persisted();
    first.disconnect();

    const second = open(persist, mock.fetch, 't3');
    await until(() => second.store.getSnapshot().status === 'ready');
    const s = second.store.getSnapshot();
    expect(s.pending).toEqual([{ kind: 'approval', toolCallId: 'c1', name: 'delete', input: { path: '/tmp' } }]);
    expect(s.sendBlocked?.code).toBe('run_paused');
    await expect(second.store.send('something else')).rejects.toMatchObject({ code: 'run_paused' });
    expect(mock.runs).toHaveLength(1);
    await second.store.approve('c1');
    expect(mock.runs[1]!.body.resume).toEqual({ toolResults: [], approvals: [{ toolCallId: 'c1', approved: true }], answers: [] });
    expect(mock.runs[1]!.body.thread!.messages.at(-1)!.pause).toEqual({ waitingFor: s.pending });
    expect(second.text('a2')).toBe('approved');
    expect(second.store.getSnapshot()).toMatchObject({ status: 'ready', pending: [] });
  });

  it('a record that cannot be read is kept under a quarantine key and never overwritten', async () => {
    const persist = adapter();
    const mock = createMockServer({ onChat: (run) => (run.push(...answer('a1', ['hi'])), run.finish()) });
    const newer = { version: RECORD_VERSION + 1, thread: { version: 1, id: 'q1', messages: [] }, fromTheFuture: true };
    await persist.save('q1', newer as unknown as ChatRecord);
    const before = await persist.load('q1');
    const tab = open(persist, mock.fetch, 'q1');
    await until(() => tab.store.getSnapshot().status === 'error');
    expect(tab.store.getSnapshot().persistError?.message).toMatch(/newer than this library reads; changes to this chat are not saved/);
    // The chat still works in memory, and nothing is written over the stored record.
    await tab.store.send('hello');
    await tab.store.persisted();
    expect(tab.text('a1')).toBe('hi');
    expect(await persist.load('q1')).toEqual(before);
    expect((await persist.list!()).map((t) => t.id)).not.toContain('q1');
  });
});

describe('quarantine keys', () => {
  it('copies an unreadable value to a quarantine key once, and a second different one beside it (localStorage)', async () => {
    const reports: string[] = [];
    const persist = localStorageAdapter({ prefix: 'qk:', quarantinePrefix: 'qk-bad:', onUnreadable: (id, e) => reports.push(`${id}:${e.code}`) });
    localStorage.setItem('qk:broken', '{oops');
    localStorage.setItem('qk:nomessages', JSON.stringify({ version: 2, thread: { version: 1, id: 'nomessages', messages: 'no' } }));
    localStorage.setItem('qk:fine', JSON.stringify({ version: 2, thread: { version: 1, id: 'fine', messages: [] } }));
    const fetch = createMockServer().fetch;
    for (let i = 0; i < 2; i++) {
      const tab = open(persist, fetch, 'broken');
      await until(() => tab.store.getSnapshot().status === 'error');
      expect(tab.store.getSnapshot().error).toMatchObject({ code: 'invalid_request' });
      tab.disconnect();
    }
    expect(JSON.parse(localStorage.getItem('qk-bad:broken')!)).toMatchObject({ id: 'broken', stored: '{oops', reason: { code: 'invalid_request' } });
    expect(localStorage.getItem('qk-bad:broken:2')).toBeNull();
    localStorage.setItem('qk:broken', '{other');
    const tab = open(persist, fetch, 'broken');
    await until(() => tab.store.getSnapshot().status === 'error');
    expect(JSON.parse(localStorage.getItem('qk-bad:broken:2')!).stored).toBe('{other');
    expect(localStorage.getItem('qk:broken')).toBe('{other');
    expect((await persist.list()).map((t) => t.id)).toEqual(['fine']);
    expect(reports.sort()).toEqual(['broken:invalid_request', 'nomessages:invalid_request']);
  });

  it('IndexedDB list() skips and reports a corrupt record instead of throwing', async () => {
    const reports: string[] = [];
    const persist = indexedDbAdapter({ name: `db-${Math.random()}`, onUnreadable: (id) => reports.push(id) });
    await persist.save('good', { version: RECORD_VERSION, thread: createThread('good', [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hello' }] }]) });
    await persist.save('bad', { version: RECORD_VERSION, thread: { version: 1, id: 'bad', messages: 42 } } as unknown as ChatRecord);
    await persist.quarantine!('bad', 'x', { code: 'invalid_request', message: 'x', retryable: false });
    expect(await persist.list()).toEqual([expect.objectContaining({ id: 'good', title: 'hello' })]);
    expect(reports).toEqual(['bad']);
  });
});

describe('stored records', () => {
  it('quarantines a corrupt stored message instead of failing the thread', async () => {
    const good = { id: 'a', role: 'user', parts: [{ type: 'text', text: 'ok' }] };
    const bad = { id: 'b', role: 'robot', parts: 'nope' };
    const persist: PersistAdapter = definePersistAdapter({ load: () => ({ version: 1, thread: { version: 1, id: 't1', messages: [good, bad] } }), save: () => {} });
    const store = new ChatStore({ api: '/api', persist, threadId: 't1', fetch: createMockServer().fetch });
    store.connect();
    await until(() => store.getSnapshot().status === 'ready');
    const s = store.getSnapshot();
    expect(s.thread.messages).toEqual([good]);
    expect(s.quarantined).toEqual([expect.objectContaining({ index: 1, path: ['messages', 1, 'role'], raw: bad })]);
  });

  it('migrates a bare version-0 thread (content strings) into a record', () => {
    const record = loadRecord(JSON.stringify({ id: 't', messages: [{ id: 'a', role: 'user', content: 'hello' }] }));
    expect(record.thread).toEqual(createThread('t', [{ id: 'a', role: 'user', parts: [{ type: 'text', text: 'hello' }] }]));
  });

  it('migrates a version-1 record: the thread and queue are kept, its fold-state run cursor is dropped', async () => {
    const user = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
    const partial = { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'half' }] };
    const queued = { id: 'q1', role: 'user', parts: [{ type: 'text', text: 'next' }] };
    const v1 = {
      version: 1,
      thread: { version: 1, id: 't', messages: [user, partial] },
      run: { runId: 'run_9', lastEventId: 'run_9:4', fold: { current: 1, blocks: { t0: { message: 1, part: 0, open: true } }, usage: {}, totalUsage: {}, count: 5 } },
      queue: [queued],
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const record = loadRecord(JSON.stringify(v1));
    expect(record).toEqual({ version: RECORD_VERSION, thread: createThread('t', [user, partial] as never), queue: [queued], quarantined: [], updatedAt: v1.updatedAt });
    // Loaded, the old run is not resumed (it cannot be refolded) and the queued message is sent.
    const mock = createMockServer({ onChat: (run) => (run.push(...answer('a2', ['ok'])), run.finish()) });
    const store = new ChatStore({ api: '/api', persist: definePersistAdapter({ load: () => v1, save: () => {} }), threadId: 't', fetch: mock.fetch });
    store.connect();
    await until(() => mock.runs.length === 1);
    await store.idle();
    expect(mock.requests.map((r) => r.path)).toEqual(['/api/chat']);
    expect(mock.runs[0]!.body.thread!.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'q1']);
    expect(store.getSnapshot().queue).toEqual([]);
  });

  it('fails with a typed error on a stored value that is not JSON, leaving the store usable', async () => {
    const persist: PersistAdapter = definePersistAdapter({ load: () => '{oops', save: () => {} });
    const store = new ChatStore({ api: '/api', persist, threadId: 't1', fetch: createMockServer().fetch });
    store.connect();
    await until(() => store.getSnapshot().status === 'error');
    expect(store.getSnapshot().error).toMatchObject({ code: 'invalid_request' });
  });
});
