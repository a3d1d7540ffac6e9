// Saves of one thread from two tabs take turns (SavedCopy.write holds a Web Lock per thread): a tab
// whose save keeps meeting another tab's newer save (a tab streaming an answer saves each frame) is
// not beaten to the write again after each re-read until it gives up with a `storage` error (the
// demo showed "This chat is not being saved" on a loaded machine when two tabs sent at once).
import { ParlanceError, type Thread } from '@parlance/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeLocks } from '../test/fake-locks.ts';
import { revisionTag, type ChatRecord, type PersistAdapter } from './persist.ts';
import { MAX_CONFLICTS, SavedCopy } from './saved-copy.ts';

const thread = (...texts: string[]): Thread => ({
  version: 2,
  id: 't',
  messages: texts.map((text) => ({ id: text.split(' ')[0]!, role: 'user' as const, parts: [{ type: 'text' as const, text }] })),
});

describe.each([1, 3, MAX_CONFLICTS, 3 * MAX_CONFLICTS])('the other tab saves a streamed frame right after each of this tab\'s reads, %i times', (times) => {
  afterEach(() => vi.unstubAllGlobals());

  it('this tab saves after at most one conflict, and the stored thread holds both tabs\' messages', async () => {
    vi.stubGlobal('navigator', { locks: fakeLocks() });
    const records = new Map<string, ChatRecord>();
    let conflicts = 0;
    const memory = (writer: string, afterRead?: () => Promise<void>): PersistAdapter => ({
      load: async (id) => {
        const value = records.get(id);
        await afterRead?.();
        return value;
      },
      save: (id, record, expected) => {
        if (expected !== undefined && revisionTag(records.get(id)) !== expected) {
          if (writer === 'one') conflicts++;
          throw new ParlanceError('conflict', 'Saved elsewhere first');
        }
        records.set(id, structuredClone(record));
      },
    });
    // The other tab streams: each of its saves holds a longer answer.
    let frame = 0;
    const other = new SavedCopy(memory('two'), () => 'two');
    const otherSaves: Promise<unknown>[] = [];
    const otherSaves1 = () => other.write('t', () => ({ thread: thread(`b1 ${'x'.repeat(frame)}`), run: undefined, queue: [], quarantined: [] }));
    await otherSaves1();
    // Right after each of this tab's reads (its re-read after a conflict), the other tab saves a new frame, and a task passes.
    let left = times;
    const one = new SavedCopy(
      memory('one', async () => {
        if (left-- <= 0) return;
        frame++;
        otherSaves.push(otherSaves1());
        await new Promise((r) => setTimeout(r, 0));
      }),
      () => 'one',
    );
    await expect(one.write('t', () => ({ thread: thread('a1'), run: undefined, queue: [], quarantined: [] }))).resolves.toBeDefined();
    expect(conflicts).toBeLessThanOrEqual(1);
    await Promise.all(otherSaves);
    expect(records.get('t')!.thread.messages.map((m) => m.id).sort()).toEqual(['a1', 'b1']);
  });
});

it('a read that comes back older than what this copy last wrote (it raced the save, or the adapter lags) is not taken', async () => {
  const records = new Map<string, ChatRecord>();
  let lagging: ChatRecord | undefined;
  const copy = new SavedCopy(
    {
      load: (id) => lagging ?? records.get(id),
      save: (id, record) => void records.set(id, structuredClone(record)),
    },
    () => 'one',
  );
  await copy.write('t', () => ({ thread: thread('a1'), run: undefined, queue: [], quarantined: [] }));
  lagging = structuredClone(records.get('t'));
  await copy.write('t', () => ({ thread: thread('a1', 'a2'), run: undefined, queue: [], quarantined: [] }));
  const tag = copy.tag;
  // Taken, it would be merged as "the other tab removed a2".
  expect(await copy.read('t')).toBeUndefined();
  expect(copy.tag).toBe(tag);
  expect(copy.stored!.thread.messages.map((m) => m.id)).toEqual(['a1', 'a2']);
});
