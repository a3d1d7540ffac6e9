import { createThread, forkAt, switchBranch, type Message, type Thread } from '@parlance/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeThreads } from './merge.ts';

const msg = (id: string, role: Message['role'] = 'user', text = id): Message => ({ id, role, parts: [{ type: 'text', text }] });
const ids = (t: Thread) => t.messages.map((m) => m.id);
const seed = createThread('t', [msg('seed')]);

/** Two tabs and a store, as ChatStore uses them: a save merges with the stored copy when it moved on (compare-and-set on the revision). */
function simulate(ops: { tab: 0 | 1; op: 'ask' | 'answer' | 'save' | 'pull' }[]) {
  let stored = { revision: 1, thread: seed };
  const tabs = [0, 1].map(() => ({ base: seed, thread: seed, revision: 1, added: [] as string[], open: undefined as string | undefined }));
  const pull = (tab: (typeof tabs)[number]) => {
    if (tab.revision === stored.revision) return;
    tab.thread = mergeThreads(tab.base, tab.thread, stored.thread).thread;
    tab.base = stored.thread;
    tab.revision = stored.revision;
  };
  const save = (tab: (typeof tabs)[number]) => {
    pull(tab);
    stored = { revision: stored.revision + 1, thread: tab.thread };
    tab.base = tab.thread;
    tab.revision = stored.revision;
  };
  let n = 0;
  for (const { tab, op } of ops) {
    const t = tabs[tab]!;
    if (op === 'ask' || (op === 'answer' && !t.open)) {
      // A turn: the user's message, then (maybe after saves and reloads in between) its answer.
      if (t.open) continue;
      const id = `${'ab'[tab]}${n++}`;
      t.thread = { ...t.thread, messages: [...t.thread.messages, msg(id)] };
      t.added.push(id);
      t.open = id;
    } else if (op === 'answer') {
      // The answer follows its question (the tab's fold appends it to the thread the run started from).
      const at = t.thread.messages.findIndex((m) => m.id === t.open);
      const messages = [...t.thread.messages];
      messages.splice(at + 1, 0, msg(`${t.open}r`, 'assistant'));
      t.thread = { ...t.thread, messages };
      t.added.push(`${t.open}r`);
      t.open = undefined;
    } else if (op === 'save') save(t);
    else pull(t);
  }
  for (const t of tabs) {
    if (!t.open) continue;
    const at = t.thread.messages.findIndex((m) => m.id === t.open);
    t.thread = { ...t.thread, messages: [...t.thread.messages.slice(0, at + 1), msg(`${t.open}r`, 'assistant'), ...t.thread.messages.slice(at + 1)] };
    t.added.push(`${t.open}r`);
  }
  for (const t of tabs) save(t);
  for (const t of tabs) pull(t);
  return { stored, tabs };
}

describe('mergeThreads', () => {
  it('any interleaving of two tabs’ questions, answers, saves and reloads loses nothing, keeps each tab’s order and each turn whole, and converges', () => {
    const op = fc.record({ tab: fc.constantFrom<0 | 1>(0, 1), op: fc.constantFrom<'ask' | 'answer' | 'save' | 'pull'>('ask', 'answer', 'save', 'pull') });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const { stored, tabs } = simulate(ops);
        const got = ids(stored.thread);
        expect(new Set(got).size).toBe(got.length);
        expect(got[0]).toBe('seed');
        for (const t of tabs) {
          // Every message a tab wrote is stored, in the order the tab wrote them.
          expect(got.filter((id) => t.added.includes(id))).toEqual(t.added);
          // A turn is never split by the other tab's messages.
          for (const id of t.added.filter((x) => !x.endsWith('r'))) expect(got[got.indexOf(id) + 1]).toBe(`${id}r`);
          // Both tabs end up showing what is stored.
          expect(ids(t.thread)).toEqual(got);
        }
        expect(got.length).toBe(1 + tabs[0]!.added.length + tabs[1]!.added.length);
      }),
      { numRuns: 500 },
    );
  });

  it('puts the stored turns first and this tab’s after them', () => {
    const theirs = { ...seed, messages: [...seed.messages, msg('a1'), msg('a1r', 'assistant')] };
    const mine = { ...seed, messages: [...seed.messages, msg('b1'), msg('b1r', 'assistant')] };
    const merged = mergeThreads(seed, mine, theirs);
    expect(ids(merged.thread)).toEqual(['seed', 'a1', 'a1r', 'b1', 'b1r']);
    expect(merged.local).toBe(true);
    expect(mergeThreads(seed, seed, theirs)).toMatchObject({ thread: { ...theirs }, local: false, remote: true });
  });

  it('keeps a message this tab removed since base removed (a failed turn dropped by retry), and one the other tab removed too', () => {
    const failed = { ...seed, messages: [...seed.messages, msg('u1'), msg('u1-failed', 'assistant')] };
    const retried = { ...failed, messages: failed.messages.slice(0, 2) };
    expect(ids(mergeThreads(failed, retried, failed).thread)).toEqual(['seed', 'u1']);
    expect(ids(mergeThreads(failed, failed, retried).thread)).toEqual(['seed', 'u1']);
  });

  it('takes the changed side’s copy of a message both hold (the tab streaming it)', () => {
    const base = { ...seed, messages: [...seed.messages, msg('a1', 'assistant', 'Hel')] };
    const mine = { ...seed, messages: [...seed.messages, msg('a1', 'assistant', 'Hello there')] };
    const theirs = JSON.parse(JSON.stringify(base)) as Thread;
    expect(mergeThreads(base, mine, theirs).thread.messages[1]).toBe(mine.messages[1]);
    expect(mergeThreads(base, base, mine).thread.messages[1]).toBe(mine.messages[1]);
  });

  // Found by the two-tab e2e: a tab that had read a partial answer held it as its own object while
  // its base was the record it read (a copy parsed from storage): by identity its copy looked
  // "changed", won the merge, and the partial answer was saved over the finished one.
  it.each([
    ['base and mine are copies (both read from storage)', (t: Thread) => JSON.parse(JSON.stringify(t)) as Thread, (t: Thread) => JSON.parse(JSON.stringify(t)) as Thread],
    ['mine is a copy of base', (t: Thread) => t, (t: Thread) => JSON.parse(JSON.stringify(t)) as Thread],
    ['base is a copy of mine', (t: Thread) => JSON.parse(JSON.stringify(t)) as Thread, (t: Thread) => t],
    ['the same objects', (t: Thread) => t, (t: Thread) => t],
  ])('a message this tab holds unchanged since base takes the other side’s newer copy: %s', (_, asBase, asMine) => {
    const partial = { ...seed, messages: [...seed.messages, msg('q'), msg('a1', 'assistant', 'Hel')] };
    const finished = { ...seed, messages: [...seed.messages, msg('q'), msg('a1', 'assistant', 'Hello there, the whole answer')] };
    const merged = mergeThreads(asBase(partial), asMine(partial), finished);
    expect(merged.thread.messages.map((m) => m.parts)).toEqual(finished.messages.map((m) => m.parts));
    expect(merged.local).toBe(false);
    // And the other way round: this tab streamed on, the stored copy is still the base's.
    const back = mergeThreads(asBase(partial), finished, asMine(partial));
    expect(back.thread.messages[2]).toBe(finished.messages[2]);
    expect(back.local).toBe(true);
  });

  it('an edit in one tab and an append in the other: the edit stays active and the append joins the old version', () => {
    const base = { ...seed, messages: [...seed.messages, msg('u2'), msg('a2', 'assistant')] };
    const edited = forkAt(base, 1, [msg('u2b'), msg('a2b', 'assistant')]);
    const appended = { ...base, messages: [...base.messages, msg('u3'), msg('a3', 'assistant')] };
    for (const [mine, theirs] of [
      [edited, appended],
      [appended, edited],
    ] as const) {
      const { thread } = mergeThreads(base, mine, theirs);
      expect(ids(thread)).toEqual(['seed', 'u2b', 'a2b']);
      expect(thread.branches?.seed?.others.map((v) => v.map((m) => m.id))).toEqual([['u2', 'a2', 'u3', 'a3']]);
      // The old version, appends included, comes back with the arrows.
      expect(ids(switchBranch(thread, 'u2b', 0))).toEqual(['seed', 'u2', 'a2', 'u3', 'a3']);
    }
  });

  it('two tabs regenerating the same answer keep both new answers as versions', () => {
    const base = { ...seed, messages: [...seed.messages, msg('u1'), msg('a1', 'assistant')] };
    const regen = (id: string) => {
      const forked = forkAt(base, 2);
      return { ...forked, messages: [...forked.messages, msg(id, 'assistant')] };
    };
    const { thread } = mergeThreads(base, regen('x'), regen('y'));
    expect(ids(thread)).toEqual(['seed', 'u1', 'y']);
    expect(thread.branches?.u1?.others.map((v) => v.map((m) => m.id))).toEqual([['a1'], ['x']]);
  });
});
