// @vitest-environment jsdom
// Issue #34, as Chromium runs it: each tab has its own copy of localStorage and gets the other tabs'
// writes late (they travel through the browser process), while the announcement of a save and the
// hand-off of a Web Lock can come first. Each "tab" here is a ChatStore whose localStorageAdapter
// reads its own copy; writes reach the other copy after the delay of the row. Without the revision
// marks (revision-marks.ts) a tab re-read its stale copy after an announcement and missed the other
// tab's turn, started its run from a thread without the first turn, or won a compare-and-set against
// its stale copy (both tabs saved the same revision: one write lost).
import { messageText, type Message } from '@parlance/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import { localStorageAdapter } from '../src/local-storage-adapter.ts';
import { loadRecord, type PersistAdapter } from '../src/persist.ts';
import { fakeLocks } from './fake-locks.ts';
import { answer, createMockServer, until, type MockRun } from './mock-server.ts';

const texts = (messages: Message[]) => messages.map((m) => messageText(m));

/**
 * One origin's localStorage as Chromium keeps it: a copy per tab; a tab's own writes show in its
 * copy at once, and reach the other copies in order, each through `deliver`.
 */
function tabCopies(count: number, deliver: (apply: () => void) => void): Storage[] {
  const copies = Array.from({ length: count }, () => new Map<string, string>());
  return copies.map((copy, i) => {
    const send = (key: string, value: string | null) => {
      for (const [j, other] of copies.entries()) if (j !== i) deliver(() => (value === null ? other.delete(key) : other.set(key, value)));
    };
    const storage = {
      getItem: (key: string) => copy.get(key) ?? null,
      setItem: (key: string, value: string) => {
        copy.set(key, String(value));
        send(key, String(value));
      },
      removeItem: (key: string) => {
        copy.delete(key);
        send(key, null);
      },
      key: (index: number) => [...copy.keys()][index] ?? null,
      get length() {
        return copy.size;
      },
      clear: () => {
        for (const key of [...copy.keys()]) storage.removeItem(key);
      },
    };
    return storage as Storage;
  });
}

/** Answers "re: <the last user message>" a few tasks later, in several frames (each one saved). */
function server() {
  return createMockServer({
    onChat: (run: MockRun) => {
      const last = run.body.thread!.messages.at(-1)!;
      const events = answer(`a-${last.id}`, ['re: ', ...messageText(last).split('')]);
      let at = 0;
      const next = () => {
        if (at >= events.length) return run.finish();
        run.push(events[at++]!);
        setTimeout(next, 1);
      };
      setTimeout(next, 1);
    },
  });
}

// When a write reaches the other tab's copy: the interleavings of a save, its announcement and the lock hand-off.
const delivery: [string, (apply: () => void) => void][] = [
  ['at once (one copy)', (apply) => apply()],
  ['a task later', (apply) => void setTimeout(apply, 0)],
  ['5 ms later', (apply) => void setTimeout(apply, 5)],
  ['40 ms later', (apply) => void setTimeout(apply, 40)],
];

describe.each(delivery)("two tabs whose copies of localStorage get each other's writes %s", (_, deliver) => {
  const tabs: { disconnect: () => void }[] = [];
  afterEach(() => {
    for (const t of tabs.splice(0)) t.disconnect();
    vi.unstubAllGlobals();
  });

  async function twoTabs(prefix = 'late:') {
    vi.stubGlobal('navigator', { ...navigator, locks: fakeLocks() });
    const mock = server();
    const copies = tabCopies(2, deliver);
    const open = async (storage: Storage) => {
      const persist = localStorageAdapter({ prefix, storage });
      const store = new ChatStore({ api: '/api', fetch: mock.fetch, persist, threadId: 't1', retryDelayMs: 0 });
      store.schedule = (flush) => queueMicrotask(flush);
      const tab = { store, persist, disconnect: store.connect(), text: () => texts(store.getSnapshot().thread.messages) };
      tabs.push(tab);
      await until(() => store.getSnapshot().status !== 'loading');
      return tab;
    };
    return { mock, tabs: [await open(copies[0]!), await open(copies[1]!)] as const };
  }
  const stored = async (persist: PersistAdapter) => texts(loadRecord(await persist.load('t1')).thread.messages);
  /** Both tabs show `all`, neither reports a failed save, and each tab's copy (once it caught up) holds `all`. */
  async function settled(one: Awaited<ReturnType<typeof twoTabs>>['tabs'][0], two: typeof one, all: string[]) {
    await until(() => one.text().join() === all.join() && two.text().join() === all.join(), 5000);
    await Promise.all([one.store.persisted(), two.store.persisted()]);
    for (const tab of [one, two]) {
      expect(tab.store.getSnapshot().persistError).toBeUndefined();
      await until(async () => (await stored(tab.persist)).join() === all.join(), 5000);
    }
  }

  it('a message and its answer sent in one tab show in the other', async () => {
    const { tabs: [one, two] } = await twoTabs();
    await one.store.send('alpha');
    await settled(one, two, ['alpha', 're: alpha']);
  });

  it('two tabs sending at once: both turns kept, and the second run starts from a thread holding the first', async () => {
    const { mock, tabs: [one, two] } = await twoTabs();
    await Promise.all([one.store.send('alpha'), two.store.send('bravo')]);
    const all = ['alpha', 're: alpha', 'bravo', 're: bravo'];
    await settled(one, two, all);
    expect(mock.runs.map((r) => texts(r.body.thread!.messages))).toEqual([['alpha'], all.slice(0, 3)]);
  });

  // The run's lock and the adapter's are named apart for any prefix: with `parlance:run:<id>` for the
  // run and `parlance:<prefix><id>` for the adapter, the prefix `run:` made them one lock, held by
  // the run while its own saves waited for it.
  it.each(['run:', 'rev:', 'save:', 'parlance:run:', ''])('the prefix %j: two tabs sending at once still both finish', async (prefix) => {
    const { tabs: [one, two] } = await twoTabs(prefix);
    await Promise.all([one.store.send('alpha'), two.store.send('bravo')]);
    await settled(one, two, ['alpha', 're: alpha', 'bravo', 're: bravo']);
  });

  it('alternate sends without reloads: nothing lost, the same order in both', async () => {
    const { mock, tabs: [one, two] } = await twoTabs();
    const all: string[] = [];
    for (const [i, text] of ['alpha', 'bravo', 'charlie', 'delta'].entries()) {
      const [tab, other] = i % 2 ? [two, one] : [one, two];
      await tab.store.send(text);
      all.push(text, `re: ${text}`);
      await until(() => other.text().join() === all.join(), 5000);
    }
    await settled(one, two, all);
    expect(texts(mock.runs[3]!.body.thread!.messages)).toEqual(all.slice(0, 7));
  });
});
