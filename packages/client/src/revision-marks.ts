/**
 * Revision marks: which revision of a record was last written, readable by every tab at once.
 *
 * Chromium keeps a copy of localStorage in each tab's renderer and applies the writes of other tabs
 * to it later (a few milliseconds, much more on a loaded machine). So a tab can be told of a save (a
 * BroadcastChannel announcement), or be handed a lock right after another tab saved under it, and
 * still read the copy from before that save: a compare-and-set under a Web Lock then compares
 * against a stale copy (two tabs both "win" and one write is lost), and a re-read after an
 * announcement finds nothing new. Web Locks are kept by the browser, one set for the origin, so a
 * held lock's name is seen by every tab as soon as it is granted: a save leaves a mark (a held
 * shared lock named after the revision it wrote) before it resolves, and a read first waits until
 * this tab's copy shows the newest mark's revision. IndexedDB needs none of this (its reads go to
 * the browser's one copy).
 */
import { lockManager } from './web-locks.ts';

/** How long a read waits for this tab's copy to show a marked revision (then it goes on with what it has; the mark is not waited for again). */
export const MARK_WAIT_MS = 3000;
/** How often the copy is looked at while waiting (a `storage` event would do, but it is not fired for every write path, e.g. a removeItem of the other slot). */
const POLL_MS = 5;

/**
 * The mark this page holds, by lock name prefix and key: how to let it go. Page-wide,
 * not per adapter (an app may make an adapter per render): one mark per thread saved by this page.
 */
const mine = /* @__PURE__ */ new Map<string, () => void>();
/** Per lock name prefix and key, the mark given up on (not waited for again; a newer one is); bounded like `mine`. */
const givenUp = /* @__PURE__ */ new Map<string, number>();

/**
 * The marks of one storage: `mark(key, revision)` after a save, `caughtUp(key, current)` before a read.
 * Each key holds at most one mark per page (the previous one is let go once a newer one is held),
 * so the locks held are bounded by the number of threads this page has saved.
 */
export function revisionMarks(namespace: string) {
  // Its own root: the adapters' own lock names start with `parlance:` and a user's prefix follows.
  const base = `parlance-rev:${namespace}`;

  /** Holds a mark for `revision` of `key`; resolves once it is granted (every tab can see it then). */
  async function mark(key: string, revision: number): Promise<void> {
    const locks = lockManager();
    if (!locks?.query) return;
    const held = mine.get(base + key);
    await new Promise<void>((granted, failed) => {
      locks
        .request(
          `${base}${key}:${revision}`,
          { mode: 'shared' },
          () =>
            new Promise<void>((release) => {
              mine.set(base + key, release);
              granted();
            }),
        )
        .catch(failed);
    });
    held?.();
  }

  /** The newest revision marked for `key` by any tab (-1 when none). */
  async function newest(key: string): Promise<number> {
    const locks = lockManager();
    if (!locks?.query) return -1;
    const { held = [], pending = [] } = await locks.query();
    const prefix = `${base}${key}:`;
    let max = -1;
    for (const lock of [...held, ...pending]) {
      const rest = lock.name?.startsWith(prefix) ? lock.name.slice(prefix.length) : '';
      if (/^\d+$/.test(rest)) max = Math.max(max, Number(rest));
    }
    return max;
  }

  /**
   * Resolves once `current()` (the revision this tab's copy shows for `key`) reaches the newest mark,
   * or after `MARK_WAIT_MS` (a copy that never catches up, e.g. storage cleared by hand: that mark is
   * then not waited for again).
   */
  async function caughtUp(key: string, current: () => number): Promise<void> {
    const want = await newest(key);
    if (want <= current() || want === givenUp.get(base + key)) return;
    for (let waited = 0; waited < MARK_WAIT_MS; waited += POLL_MS) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      if (current() >= want) return;
    }
    givenUp.set(base + key, want);
  }

  return { mark, caughtUp };
}
