// @vitest-environment jsdom
// Issue #26, item 3: saves never stop and never lose the last good copy.
import { ParlanceError, createThread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import { localStorageAdapter } from '../src/local-storage-adapter.ts';
import { loadRecord, type ChatRecord, type PersistAdapter } from '../src/persist.ts';
import { FaultyStorage, type Fault } from './faulty-storage.ts';
import { answer, createMockServer, until } from './mock-server.ts';
import { definePersistAdapter } from '../src/define-persist-adapter.ts';

const echo = () => createMockServer({ onChat: (run) => (run.push(...answer(`a${run.id}`, [`answer to ${String(run.body.thread?.messages.length)}`])), run.finish()) });

function open(persist: PersistAdapter, fetch: typeof globalThis.fetch, threadId = 't1') {
  const errors: ParlanceError[] = [];
  const store = new ChatStore({ api: '/api', fetch, persist, threadId, retryDelayMs: 0, onError: (e) => errors.push(e) });
  store.schedule = (flush) => queueMicrotask(flush);
  const disconnect = store.connect();
  return { store, disconnect, errors };
}

const count = (store: ChatStore) => store.getSnapshot().thread.messages.length;

describe('a save that fails', () => {
  // Each family of failure, on the write the test picks: later saves still happen, and a reload has every message.
  it.each<[string, Fault]>([
    ['throws (storage full)', 'throw'],
    ['writes half the record', 'half'],
    ['writes half the record, then throws', 'half-and-throw'],
  ])('%s: a typed storage error the UI can show, cleared by the next save; nothing is lost', async (_, fault) => {
    let failing = false;
    const storage = new FaultyStorage(() => (failing ? fault : undefined));
    const persist = localStorageAdapter({ storage });
    const mock = echo();
    const tab = open(persist, mock.fetch);
    await until(() => tab.store.getSnapshot().status === 'ready');
    await tab.store.send('one');
    await tab.store.persisted();
    expect(count(tab.store)).toBe(2);

    failing = true;
    await tab.store.send('two');
    await tab.store.persisted();
    expect(tab.store.getSnapshot().persistError).toMatchObject({ code: 'storage', message: expect.stringMatching(/^This chat is not being saved/) });
    expect(tab.errors.at(-1)).toMatchObject({ code: 'storage' });
    // What was saved before the failure is intact and loads.
    expect(loadRecord(await persist.load('t1')).thread.messages).toHaveLength(2);

    failing = false;
    await tab.store.send('three');
    await tab.store.persisted();
    expect(tab.store.getSnapshot().persistError).toBeUndefined();
    expect(count(tab.store)).toBe(6);
    tab.disconnect();

    const reloaded = open(persist, mock.fetch);
    await until(() => reloaded.store.getSnapshot().status === 'ready');
    expect(reloaded.store.getSnapshot().thread).toEqual(tab.store.getSnapshot().thread);
    expect(reloaded.store.getSnapshot().persistError).toBeUndefined();
  });

  it('an adapter that throws synchronously on one save: every later save is still attempted', async () => {
    const saved = new Map<string, ChatRecord>();
    let calls = 0;
    const persist: PersistAdapter = definePersistAdapter({
      load: (id) => saved.get(id),
      save: (id, record) => {
        if (++calls === 2) throw new DOMException('quota', 'QuotaExceededError');
        saved.set(id, record);
      },
    });
    const mock = echo();
    const tab = open(persist, mock.fetch);
    await until(() => tab.store.getSnapshot().status === 'ready');
    for (const text of ['one', 'two', 'three', 'four']) {
      await tab.store.send(text);
      await tab.store.persisted();
    }
    expect(calls).toBeGreaterThan(2);
    expect(tab.errors.map((e) => e.code)).toEqual(['storage']);
    expect(saved.get('t1')!.thread.messages).toHaveLength(8);
    expect(tab.store.getSnapshot().persistError).toBeUndefined();
  });

  it('a write cut off before the check (a crash): loading falls back to the previous generation and sets the broken one aside', async () => {
    const storage = new FaultyStorage();
    const persist = localStorageAdapter({ storage });
    const mock = echo();
    const tab = open(persist, mock.fetch);
    await until(() => tab.store.getSnapshot().status === 'ready');
    await tab.store.send('one');
    await tab.store.persisted();
    await tab.store.send('two');
    await tab.store.persisted();
    tab.disconnect();
    // The page died in the middle of writing the next generation into the other slot.
    const good = storage.getItem('parlance:thread:t1') ?? storage.getItem('parlance:thread:~2:t1');
    const next = JSON.stringify({ ...JSON.parse(good!), revision: 99, writer: 'x' });
    const other = storage.getItem('parlance:thread:t1') ? 'parlance:thread:~2:t1' : 'parlance:thread:t1';
    storage.setItem(other, next.slice(0, next.length / 2));

    const reloaded = open(persist, mock.fetch);
    await until(() => reloaded.store.getSnapshot().status === 'ready');
    expect(count(reloaded.store)).toBe(4);
    expect(reloaded.store.getSnapshot().persistError).toBeUndefined();
    expect(JSON.parse(storage.getItem('parlance:quarantine:t1')!)).toMatchObject({ id: 't1', stored: next.slice(0, next.length / 2) });
    // Saving goes on over the broken slot.
    await reloaded.store.send('three');
    await reloaded.store.persisted();
    expect(loadRecord(await persist.load('t1')).thread.messages).toHaveLength(6);
  });

  it('a record that cannot be read at all is set aside, and the chat is saved again (never read-only for good)', async () => {
    const storage = new FaultyStorage();
    storage.setItem('parlance:thread:t1', '{"version":2,"thread":{"vers');
    const persist = localStorageAdapter({ storage });
    const mock = echo();
    const tab = open(persist, mock.fetch);
    await until(() => tab.store.getSnapshot().status === 'error');
    expect(tab.store.getSnapshot().persistError?.message).toMatch(/set aside and the chat starts afresh/);
    await tab.store.send('fresh start');
    await tab.store.persisted();
    expect(loadRecord(await persist.load('t1')).thread.messages).toHaveLength(2);
    expect(JSON.parse(storage.getItem('parlance:quarantine:t1')!).stored).toBe('{"version":2,"thread":{"vers');
    tab.disconnect();
    const reloaded = open(persist, mock.fetch);
    await until(() => reloaded.store.getSnapshot().status === 'ready');
    expect(count(reloaded.store)).toBe(2);
    expect(reloaded.store.getSnapshot().persistError).toBeUndefined();
  });

  it('the slots: one copy at rest, the previous one kept until the new one is checked', async () => {
    const storage = new FaultyStorage();
    const persist = localStorageAdapter({ storage });
    await persist.save('t1', { ...loadRecord(createThread('t1')), revision: 1, writer: 'w' }, '');
    const keys = () => Array.from({ length: storage.length }, (_, i) => storage.key(i));
    expect(keys()).toEqual(['parlance:thread:t1']);
    let seen: (string | null)[] = [];
    storage.fault = () => ((seen = keys()), undefined);
    await persist.save('t1', { ...loadRecord(createThread('t1')), revision: 2, writer: 'w' }, '1.w');
    // While the second generation was written, the first was still there; after, only the second is.
    expect(seen).toEqual(['parlance:thread:t1']);
    expect(keys()).toEqual(['parlance:thread:~2:t1']);
    expect(loadRecord(await persist.load('t1')).revision).toBe(2);
  });
});
