import { afterEach, describe, expect, it } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import type { PersistAdapter } from '../src/persist.ts';
import { forbidImpureReads } from './forbid-impure.ts';
import { answer, createMockServer } from './mock-server.ts';
import { definePersistAdapter } from '../src/define-persist-adapter.ts';

let restore: (() => void) | undefined;
afterEach(() => (restore?.(), (restore = undefined)));

describe('ChatStore construction reads no randomness or time (safe in render and server prerender)', () => {
  it('builds a store without a thread id, then mints the id at the first send', async () => {
    const mock = createMockServer({ onChat: (run) => (run.push(...answer('a1', ['hi'])), run.finish()) });
    restore = forbidImpureReads();
    const store = new ChatStore({ api: '/api', fetch: mock.fetch, retryDelayMs: 0 });
    expect(store.getSnapshot().thread.id).toBe('');
    expect(store.getSnapshot().status).toBe('ready');
    restore();
    store.schedule = (flush) => queueMicrotask(flush);
    store.connect();
    await store.send('hello');
    const id = store.getSnapshot().thread.id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((mock.requests[0]!.body as { thread: { id: string } }).thread.id).toBe(id);
    // The id stays the chat's id from then on.
    await store.send('again');
    expect(store.getSnapshot().thread.id).toBe(id);
    expect((mock.requests.filter((r) => r.path === '/api/chat')[1]!.body as { thread: { id: string } }).thread.id).toBe(id);
  });

  it('with persistence and no id: loads nothing, saves under the id minted at the first send', async () => {
    const saved = new Map<string, unknown>();
    const loads: string[] = [];
    const persist: PersistAdapter = definePersistAdapter({
      load: async (id) => (loads.push(id), saved.get(id)),
      save: async (id, record) => void saved.set(id, record),
    });
    const mock = createMockServer({ onChat: (run) => (run.push(...answer('a1', ['hi'])), run.finish()) });
    restore = forbidImpureReads();
    const store = new ChatStore({ api: '/api', fetch: mock.fetch, retryDelayMs: 0, persist, generateId: () => 'minted' });
    restore();
    store.schedule = (flush) => queueMicrotask(flush);
    store.connect();
    await store.send('hello');
    await store.persisted();
    expect(loads).toEqual([]);
    expect([...saved.keys()]).toEqual(['minted']);
  });
});
