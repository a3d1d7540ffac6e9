/**
 * The persistence adapter contract (see `PersistAdapter` in persist.ts) as runnable checks, for
 * the built-in adapters and any adapter a user writes. Runner-free: each case is a name and an
 * async function that throws on a failure, so it plugs into vitest, jest, node:test or mocha.
 */
import { ParlanceError, createThread, type Message } from '@parlance/protocol';
import { RECORD_VERSION, loadRecord, revisionTag, type ChatRecord, type PersistAdapter } from './persist.ts';

/**
 * One check of the adapter contract: run it in a test of your own.
 *
 * @example
 * for (const { name, run } of adapterConformance(() => myAdapter())) it(name, run);
 */
export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
}

const check = (ok: boolean, message: string) => {
  if (!ok) throw new Error(`Adapter contract: ${message}`);
};

const message = (id: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text: id }] });

const record = (id: string, ids: string[], revision: number, writer = 'w'): ChatRecord => ({
  version: RECORD_VERSION,
  thread: createThread(id, ids.map(message)),
  revision,
  writer,
});

async function conflicts(attempt: () => unknown): Promise<boolean> {
  try {
    await attempt();
    return false;
  } catch (error) {
    return ParlanceError.from(error).code === 'conflict';
  }
}

const ids = async (adapter: PersistAdapter, id: string) => loadRecord(await adapter.load(id)).thread.messages.map((m) => m.id);

let unique = 0;

/**
 * The checks every persistence adapter passes: `make` returns an adapter over fresh (or shared, for
 * the "two tabs" cases: call it twice for two tabs of one origin) storage. Covers: round trip,
 * compare-and-set on the revision (a stale save conflicts and writes nothing; of two saves based
 * on one revision exactly one wins), tombstones (a removed thread loads as deleted, leaves the
 * list, and a stale save cannot bring it back), and `list` skipping what is deleted.
 *
 * @example
 * import { adapterConformance } from '@parlance/client/conformance';
 * describe('my adapter', () => { for (const c of adapterConformance(() => myAdapter())) it(c.name, c.run); });
 */
export function adapterConformance(make: () => PersistAdapter): ConformanceCase[] {
  const id = () => `conformance-${Date.now().toString(36)}-${++unique}`;
  return [
    {
      name: 'save then load returns the record; nothing stored loads as null or undefined',
      run: async () => {
        const a = make();
        const t = id();
        check((await a.load(t)) == null, 'load of a thread never saved is null/undefined');
        await a.save(t, record(t, ['m1'], 1), '');
        check((await ids(a, t)).join() === 'm1', 'load returns what save wrote');
        check(revisionTag(await a.load(t)) === '1.w', 'the stored revision and writer are kept');
      },
    },
    {
      name: 'save is a compare-and-set: a save based on a stale revision throws conflict and writes nothing',
      run: async () => {
        const [one, two] = [make(), make()];
        const t = id();
        await one.save(t, record(t, ['m1'], 1, 'one'), '');
        await one.save(t, record(t, ['m1', 'm2'], 2, 'one'), '1.one');
        check(await conflicts(() => two.save(t, record(t, ['x'], 2, 'two'), '1.one')), 'a save expecting an older revision throws a ParlanceError with code conflict');
        check(await conflicts(() => two.save(t, record(t, ['x'], 1, 'two'), '')), 'a save expecting nothing stored throws conflict when something is');
        check((await ids(two, t)).join() === 'm1,m2', 'a conflicting save writes nothing');
      },
    },
    {
      name: 'two saves based on one revision at the same time: exactly one wins, the other conflicts',
      run: async () => {
        const [one, two] = [make(), make()];
        const t = id();
        await one.save(t, record(t, ['m1'], 1, 'one'), '');
        const results = await Promise.allSettled([one.save(t, record(t, ['m1', 'a'], 2, 'one'), '1.one'), two.save(t, record(t, ['m1', 'b'], 2, 'two'), '1.one')]);
        const won = results.filter((r) => r.status === 'fulfilled').length;
        const lost = results.filter((r) => r.status === 'rejected' && ParlanceError.from(r.reason).code === 'conflict').length;
        check(won === 1 && lost === 1, `one save wins and one conflicts (got ${won} won, ${lost} conflicted)`);
        const stored = (await ids(one, t)).join();
        check(stored === 'm1,a' || stored === 'm1,b', 'the stored record is the winner’s, whole');
      },
    },
    {
      name: 'remove leaves a tombstone: it loads as deleted, leaves the list, and a stale save cannot bring the thread back',
      run: async () => {
        const [one, two] = [make(), make()];
        if (!one.remove) return;
        const t = id();
        await one.save(t, record(t, ['m1'], 1, 'one'), '');
        await one.remove(t);
        await one.remove(t);
        const stored = loadRecord(await two.load(t));
        check(stored.deleted === true, 'a removed thread loads as a record with deleted: true');
        check(await conflicts(() => two.save(t, record(t, ['m1', 'late'], 2, 'two'), '1.one')), 'a save based on the revision before the delete conflicts');
        check(loadRecord(await two.load(t)).deleted === true, 'the tombstone stays');
        if (one.list) check(!(await one.list()).some((s) => s.id === t), 'list skips a deleted thread');
      },
    },
    {
      name: 'list names what was saved, with the first user message as its title',
      run: async () => {
        const a = make();
        if (!a.list) return;
        const t = id();
        await a.save(t, record(t, ['hello'], 1), '');
        check((await a.list()).some((s) => s.id === t && s.title === 'hello'), 'list has the thread with its title');
      },
    },
  ];
}
