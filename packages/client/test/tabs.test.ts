// @vitest-environment jsdom
// Issue #34: one thread open in two tabs. Each "tab" is a ChatStore with its own adapter over one
// shared storage; they hear each other as tabs do (the page-wide announcements of tab-sync.ts), and
// with Web Locks stubbed in (fake-locks.ts) they take turns the way Chromium's `navigator.locks` makes them.
import 'fake-indexeddb/auto';
import { messageText, type Message } from '@parlance/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import { indexedDbAdapter } from '../src/indexed-db-adapter.ts';
import { localStorageAdapter } from '../src/local-storage-adapter.ts';
import { loadRecord, type PersistAdapter } from '../src/persist.ts';
import { fakeLocks } from './fake-locks.ts';
import { answer, createMockServer, until, type MockRun } from './mock-server.ts';

const texts = (messages: Message[]) => messages.map((m) => messageText(m));

/** Answers "re: <the last user message>"; `hold` keeps a run open until the test finishes it. */
function server(options: { hold?: boolean } = {}) {
  return createMockServer({
    onChat: (run: MockRun) => {
      const last = run.body.thread!.messages.at(-1)!;
      const events = answer(`a-${last.id}`, ['re: ', messageText(last)]);
      if (options.hold) return run.push(...events.slice(0, 4));
      // Later, so the other tab can act while this run is in flight.
      setTimeout(() => (run.push(...events), run.finish()), 5);
    },
  });
}

let dbName = 0;
describe.each<[string, () => PersistAdapter]>([
  ['localStorage', () => localStorageAdapter({ prefix: 'tabs:' })],
  ['IndexedDB', () => indexedDbAdapter({ name: `tabs-${dbName}` })],
])('two tabs on one thread (%s)', (_, adapter) => {
  const tabs: { disconnect: () => void }[] = [];
  beforeEach(() => {
    localStorage.clear();
    dbName++;
  });
  afterEach(() => {
    for (const t of tabs.splice(0)) t.disconnect();
    vi.unstubAllGlobals();
  });

  async function open(fetch: typeof globalThis.fetch, threadId = 't1') {
    const persist = adapter();
    const store = new ChatStore({ api: '/api', fetch, persist, threadId, retryDelayMs: 0 });
    store.schedule = (flush) => queueMicrotask(flush);
    const tab = { store, persist, disconnect: store.connect(), text: () => texts(store.getSnapshot().thread.messages) };
    tabs.push(tab);
    await until(() => store.getSnapshot().status !== 'loading');
    return tab;
  }
  const stored = async (persist: PersistAdapter, id = 't1') => texts(loadRecord(await persist.load(id)).thread.messages);

  it('a message sent in one tab shows in the other, without a reload', async () => {
    const mock = server();
    const [one, two] = [await open(mock.fetch), await open(mock.fetch)];
    await one.store.send('alpha');
    await until(() => two.text().join() === 'alpha,re: alpha');
  });

  it('alternating sends without reloads lose nothing; both tabs and a reload show all of it', async () => {
    const mock = server();
    const [one, two] = [await open(mock.fetch), await open(mock.fetch)];
    const all = ['alpha', 're: alpha', 'bravo', 're: bravo', 'charlie', 're: charlie', 'delta', 're: delta'];
    await one.store.send('alpha');
    await until(() => two.text().length === 2);
    await two.store.send('bravo');
    await until(() => one.text().length === 4);
    await one.store.send('charlie');
    await until(() => two.text().length === 6);
    await two.store.send('delta');
    await until(() => one.text().length === 8);
    await Promise.all([one.store.persisted(), two.store.persisted()]);
    expect(one.text()).toEqual(all);
    expect(two.text()).toEqual(all);
    expect(await stored(one.persist)).toEqual(all);
    // The model saw every earlier turn: the last run was sent the whole thread.
    expect(texts(mock.runs[3]!.body.thread!.messages)).toEqual(all.slice(0, 7));
    for (const t of tabs.splice(0)) t.disconnect();
    const reloaded = await open(mock.fetch);
    expect(reloaded.text()).toEqual(all);
  });

  it('two tabs sending at once: both turns are kept, one after the other, and the second run starts from a thread holding the first', async () => {
    vi.stubGlobal('navigator', { ...navigator, locks: fakeLocks() });
    const mock = server();
    const [one, two] = [await open(mock.fetch), await open(mock.fetch)];
    const sent = [one.store.send('alpha'), two.store.send('bravo')];
    // The second waits, shown as queued, while the first runs.
    expect(texts(two.store.getSnapshot().queue)).toEqual(['bravo']);
    await Promise.all(sent);
    await until(() => one.text().length === 4 && two.text().length === 4);
    const all = ['alpha', 're: alpha', 'bravo', 're: bravo'];
    expect(mock.runs.map((r) => texts(r.body.thread!.messages))).toEqual([['alpha'], all.slice(0, 3)]);
    await Promise.all([one.store.persisted(), two.store.persisted()]);
    expect(await stored(one.persist)).toEqual(all);
    expect(one.text()).toEqual(all);
    expect(two.text()).toEqual(all);
  });

  it('without Web Locks, two tabs sending at once still keep both turns (the saves merge)', async () => {
    const mock = server();
    const [one, two] = [await open(mock.fetch), await open(mock.fetch)];
    await Promise.all([one.store.send('alpha'), two.store.send('bravo')]);
    await Promise.all([one.store.persisted(), two.store.persisted()]);
    await until(async () => (await stored(one.persist)).length === 4);
    const got = await stored(one.persist);
    expect(got.filter((t) => t.includes('alpha'))).toEqual(['alpha', 're: alpha']);
    expect(got.filter((t) => t.includes('bravo'))).toEqual(['bravo', 're: bravo']);
    await until(() => one.text().join() === got.join() && two.text().join() === got.join());
  });

  it('a run streaming in one tab is followed live in the other (the same run, resumed), and Stop there stops it', async () => {
    const mock = server({ hold: true });
    const [one, two] = [await open(mock.fetch), await open(mock.fetch)];
    void one.store.send('long one');
    await until(() => mock.runs.length === 1);
    await until(() => two.store.getSnapshot().status === 'streaming' && two.text().join() === 'long one,re: ');
    const run = mock.runs[0]!;
    run.push(...answer('a-x', ['re: ', 'long one']).slice(4, 5));
    await until(() => two.text()[1] === 're: long one');
    // The other tab attached to the same run: no second run was started.
    expect(mock.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1);
    expect(mock.requests.some((r) => r.path === `/api/runs/${run.id}/events`)).toBe(true);
    await two.store.stop();
    expect(run.cancelled).toBe(true);
    await until(() => one.store.getSnapshot().status === 'ready' && two.store.getSnapshot().status === 'ready');
    expect(one.text()).toEqual(two.text());
  });

  it('a delete in one tab reaches the other: it shows the chat deleted, refuses to send, and saves nothing', async () => {
    const mock = server();
    const [one, two] = [await open(mock.fetch), await open(mock.fetch)];
    await one.store.send('alpha');
    await until(() => two.text().length === 2);
    await one.persist.remove!('t1');
    await until(() => two.store.getSnapshot().deleted === true);
    expect(two.store.getSnapshot().sendBlocked?.code).toBe('not_found');
    await expect(two.store.send('bravo')).rejects.toMatchObject({ code: 'not_found' });
    expect(loadRecord(await two.persist.load('t1')).deleted).toBe(true);
    expect((await (two.persist.list?.() ?? Promise.resolve([]))).map((t) => t.id)).not.toContain('t1');
  });

  it('a stale tab that never heard of the delete and sends: the thread does not come back', async () => {
    const mock = server();
    const [one, two] = [await open(mock.fetch), await open(mock.fetch)];
    await one.store.send('alpha');
    await until(() => two.text().length === 2);
    two.disconnect(); // hears nothing from here on
    await one.persist.remove!('t1');
    await two.store.send('bravo').catch(() => {});
    await two.store.persisted();
    await until(() => two.store.getSnapshot().deleted === true);
    const record = loadRecord(await one.persist.load('t1'));
    expect(record).toMatchObject({ deleted: true });
    expect(record.thread.messages).toEqual([]);
    expect((await (one.persist.list?.() ?? Promise.resolve([]))).map((t) => t.id)).not.toContain('t1');
  });
});

it('where there is no BroadcastChannel, a storage event from another tab brings its save in (localStorage)', async () => {
  vi.stubGlobal('BroadcastChannel', undefined);
  try {
    localStorage.clear();
    const mock = server();
    const persist = localStorageAdapter({ prefix: 'fallback:' });
    const store = new ChatStore({ api: '/api', fetch: mock.fetch, persist, threadId: 't1', retryDelayMs: 0 });
    store.schedule = (flush) => queueMicrotask(flush);
    const disconnect = store.connect();
    await until(() => store.getSnapshot().status === 'ready');
    // Another tab saves (its own adapter, no announcement in this page) and the browser fires `storage` here.
    const other = localStorageAdapter({ prefix: 'fallback:' });
    const thread = { version: 2 as const, id: 't1', messages: [{ id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'from afar' }] }] };
    await other.save('t1', { version: 2, thread, revision: 1, writer: 'other' }, '');
    window.dispatchEvent(new StorageEvent('storage', { key: 'fallback:t1' }));
    await until(() => texts(store.getSnapshot().thread.messages).join() === 'from afar');
    disconnect();
  } finally {
    vi.unstubAllGlobals();
  }
});
