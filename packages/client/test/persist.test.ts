// @vitest-environment jsdom
import 'fake-indexeddb/auto';
import { createThread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import { indexedDbAdapter, loadRecord, localStorageAdapter, type PersistAdapter } from '../src/persist.ts';
import { answer, createMockServer, until } from './mock-server.ts';

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

  it('removes a chat: it is gone from load and list, and removing it again is no error', async () => {
    const persist = adapter();
    await persist.save('keep', loadRecord(createThread('keep')));
    await persist.save('drop', loadRecord(createThread('drop')));
    await persist.remove!('drop');
    await persist.remove!('drop');
    expect(await persist.load('drop')).toBeFalsy();
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
    await until(() => first.store.getSnapshot().run?.lastEventId === 'run_1:11');
    await first.store.persisted();
    first.disconnect(); // the page goes away; the run goes on
    const run = mock.runs[0]!;
    run.push(...events.slice(12, 20));

    const second = open(persist, mock.fetch, 't2');
    await until(() => second.text('a1') === deltas.slice(0, 17).join(''));
    expect(second.store.getSnapshot().status).toBe('streaming');
    await second.store.stop();
    expect(run.cancelled).toBe(true);
    expect(second.store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'cancelled' });
    expect(second.text('a1')).toBe(deltas.slice(0, 17).join(''));
    const resumed = mock.requests.find((r) => r.path === '/api/runs/run_1/events')!;
    expect(resumed.headers['last-event-id']).toMatch(/^run_1:\d+$/);
  });
});

describe('stored records', () => {
  it('quarantines a corrupt stored message instead of failing the thread', async () => {
    const good = { id: 'a', role: 'user', parts: [{ type: 'text', text: 'ok' }] };
    const bad = { id: 'b', role: 'robot', parts: 'nope' };
    const persist: PersistAdapter = { load: () => ({ version: 1, thread: { version: 1, id: 't1', messages: [good, bad] } }), save: () => {} };
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

  it('fails with a typed error on a stored value that is not JSON, leaving the store usable', async () => {
    const persist: PersistAdapter = { load: () => '{oops', save: () => {} };
    const store = new ChatStore({ api: '/api', persist, threadId: 't1', fetch: createMockServer().fetch });
    store.connect();
    await until(() => store.getSnapshot().status === 'error');
    expect(store.getSnapshot().error).toMatchObject({ code: 'invalid_request' });
  });
});
