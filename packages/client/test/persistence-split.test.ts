// @vitest-environment jsdom
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import { definePersistAdapter } from '../src/define-persist-adapter.ts';
import { localStorageAdapter } from '../src/local-storage-adapter.ts';
import { loadRecord, type ChatRecord, type PersistAdapter } from '../src/persist.ts';
import { answer, createMockServer, until } from './mock-server.ts';

// A path, not a URL: under jsdom `import.meta.url` is not a file URL.
const SRC = join(dirname(fileURLToPath(new URL(import.meta.url, 'file:///'))), '..', 'src');

/** The client files `file` pulls in at run time (type-only imports and exports are erased, so they do not count). */
function reached(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(join(SRC, file), 'utf8');
  for (const [, what, from] of source.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'\.\/([\w-]+\.ts)'/gm)) {
    if (!what) reached(from!, seen);
  }
  return seen;
}

/** The tab sync, merge, stored-record and lock code: what an app without persistence must not download. */
const PERSISTENCE = ['chat-persistence.ts', 'merge.ts', 'persist.ts', 'revision-marks.ts', 'saved-copy.ts', 'tab-sync.ts', 'web-locks.ts'];

const answering = () =>
  createMockServer({
    onChat: (run) => {
      run.push(...answer('a1', ['Hello', ' there']));
      run.finish();
    },
  });

describe('persistence comes with the adapter (issue #35)', () => {
  it.each(['chat-store.ts', 'stream-store.ts'])('%s reaches none of the persistence code (useChat and useStream ship without it)', (file) => {
    const files = reached(file);
    expect(files.size).toBeGreaterThan(3);
    expect(PERSISTENCE.filter((f) => files.has(f))).toEqual([]);
  });

  it.each(['local-storage-adapter.ts', 'indexed-db-adapter.ts', 'define-persist-adapter.ts'])('%s brings it', (file) => {
    expect(reached(file).has('chat-persistence.ts')).toBe(true);
  });

  it('an adapter not made with definePersistAdapter: a typed invalid_request saying how, the chat still works, nothing is saved', async () => {
    const saves: ChatRecord[] = [];
    const plain: PersistAdapter = { load: () => undefined, save: (_, record) => void saves.push(record) };
    const errors: string[] = [];
    const store = new ChatStore({ api: '/api', fetch: answering().fetch, persist: plain, threadId: 't1', retryDelayMs: 0, onError: (e) => errors.push(e.code) });
    store.connect();
    await until(() => store.getSnapshot().status !== 'loading');
    expect(store.getSnapshot().persistError).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/definePersistAdapter/) });
    expect(errors).toEqual(['invalid_request']);
    await store.send('hi');
    expect(store.getSnapshot().thread.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(saves).toEqual([]);
  });

  it('definePersistAdapter: a class with private state keeps its `this`; only the optional methods it has are passed on', async () => {
    class Records {
      readonly #records = new Map<string, ChatRecord>();
      load(id: string) {
        return this.#records.get(id);
      }
      save(id: string, record: ChatRecord) {
        this.#records.set(id, structuredClone(record));
      }
      remove(id: string) {
        this.#records.delete(id);
      }
    }
    const persist = definePersistAdapter(new Records());
    expect(Object.keys(persist).sort()).toEqual(['attach', 'load', 'remove', 'save']);
    const first = new ChatStore({ api: '/api', fetch: answering().fetch, persist, threadId: 't1', retryDelayMs: 0 });
    first.connect();
    await first.send('remember me');
    await first.persisted();
    expect(loadRecord(await persist.load('t1')).thread.messages).toHaveLength(2);
    const second = new ChatStore({ api: '/api', fetch: answering().fetch, persist, threadId: 't1' });
    second.connect();
    await until(() => second.getSnapshot().thread.messages.length === 2);
    // A built-in adapter has it already, and is passed through as it is.
    const local = localStorageAdapter();
    expect(definePersistAdapter(local)).toBe(local);
    expect(typeof local.attach).toBe('function');
  });
});
