import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BRANCH_ROOT, forkAt, siblingsOf, switchBranch } from './branches.ts';
import { ParlanceError } from './error.ts';
import type { Message } from './message.ts';
import { createThread, parseThread, parseThreadLenient, serializeThread } from './thread.ts';
import { THREAD_VERSION, type Thread } from './thread-shape.ts';

const msg = (id: string, role: Message['role'], text = id): Message => ({ id, role, parts: [{ type: 'text', text }] });

/** Every message stored anywhere in the tree (active path and every inactive version). */
function allIds(thread: Thread): string[] {
  const ids = thread.messages.map((m) => m.id);
  for (const branch of Object.values(thread.branches ?? {})) for (const version of branch.others) ids.push(...version.map((m) => m.id));
  return ids.sort();
}

// What a user does in a chat: send a turn, edit a user message, regenerate an answer, flip a "‹ 1/3 ›" arrow.
type Op =
  | { kind: 'turn' }
  | { kind: 'edit'; pick: number }
  | { kind: 'regenerate'; pick: number }
  | { kind: 'switch'; pick: number; to: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'turn' }),
  fc.nat().map((pick): Op => ({ kind: 'edit', pick })),
  fc.nat().map((pick): Op => ({ kind: 'regenerate', pick })),
  fc.record({ pick: fc.nat(), to: fc.nat() }).map(({ pick, to }): Op => ({ kind: 'switch', pick, to })),
);

/** Applies the ops; returns the thread and every message id ever written (nothing may be lost). */
function play(ops: Op[]): { thread: Thread; written: string[] } {
  let thread = createThread('t');
  let n = 0;
  const written: string[] = [];
  const make = (role: Message['role']) => {
    const m = msg(`${role[0]}${n++}`, role);
    written.push(m.id);
    return m;
  };
  const answer = () => [make('assistant'), ...(n % 3 === 0 ? [make('tool'), make('assistant')] : [])];
  for (const o of ops) {
    const path = thread.messages;
    const users = path.flatMap((m, i) => (m.role === 'user' ? [i] : []));
    if (o.kind === 'turn' || !users.length) {
      thread = { ...thread, messages: [...path, make('user'), ...answer()] };
    } else if (o.kind === 'edit') {
      const at = users[o.pick % users.length]!;
      thread = forkAt(thread, at, [make('user'), ...answer()]);
    } else if (o.kind === 'regenerate') {
      const at = users[o.pick % users.length]! + 1;
      thread = forkAt(thread, at);
      thread = { ...thread, messages: [...thread.messages, ...answer()] };
    } else {
      const m = path[o.pick % path.length]!;
      const { count } = siblingsOf(thread, m.id);
      thread = switchBranch(thread, m.id, o.to % count);
    }
  }
  return { thread, written: written.sort() };
}

describe('branching threads', () => {
  it('keeps every version ever written through random edits, regenerations and switches, and round trips the tree', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const { thread, written } = play(ops);
        expect(allIds(thread)).toEqual(written);
        const parsed = parseThread(serializeThread(thread));
        expect(parsed).toEqual(thread);
        expect(parseThreadLenient(serializeThread(thread))).toEqual({ thread, quarantined: [] });
      }),
      { numRuns: 300 },
    );
  });

  it('a corrupted branched thread is a typed error with a path (strict) or loses only what was corrupted (lenient), never a crash', () => {
    const how = fc.constantFrom('delete', 'null', 'number', 'array', 'string', 'object');
    fc.assert(
      fc.property(fc.array(op, { minLength: 3, maxLength: 20 }), fc.nat(), how, (ops, seed, mutation) => {
        const root = JSON.parse(serializeThread(play(ops).thread)) as Record<string, unknown>;
        // Break a random node of the branches (the root's own errors are thread.test.ts's).
        const nodes: [Record<string | number, unknown>, string | number][] = [];
        const visit = (node: unknown) => {
          if (!node || typeof node !== 'object') return;
          for (const [k, v] of Object.entries(node)) {
            nodes.push([node as Record<string, unknown>, Array.isArray(node) ? Number(k) : k]);
            visit(v);
          }
        };
        if (!root.branches) return;
        nodes.push([root, 'branches']);
        visit(root.branches);
        const [parent, key] = nodes[seed % nodes.length]!;
        if (mutation === 'delete') delete parent[key];
        else parent[key] = mutation === 'null' ? null : mutation === 'number' ? 7 : mutation === 'array' ? [] : mutation === 'object' ? {} : 'x';
        const text = JSON.stringify(root);
        try {
          parseThread(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ParlanceError);
          expect(error).toMatchObject({ code: 'invalid_request', path: expect.any(Array) });
        }
        const { thread, quarantined } = parseThreadLenient(text);
        for (const q of quarantined) expect(q.path.length).toBeGreaterThan(0);
        // What is left is a tree the protocol functions work on.
        for (const m of thread.messages) {
          const { index, count } = siblingsOf(thread, m.id);
          expect(() => switchBranch(thread, m.id, (index + 1) % count)).not.toThrow();
        }
      }),
      { numRuns: 400 },
    );
  });

  it('switching to a version and back restores the thread, and the version sits at the positions it was written at', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), fc.nat(), fc.nat(), (ops, pick, to) => {
        const { thread } = play(ops);
        const at = pick % thread.messages.length;
        const m = thread.messages[at]!;
        const { index, count } = siblingsOf(thread, m.id);
        expect(index).toBeLessThan(count);
        const other = switchBranch(thread, m.id, to % count);
        // The prefix before the fork point is shared, and the arrow shows the chosen version.
        expect(other.messages.slice(0, at)).toEqual(thread.messages.slice(0, at));
        expect(siblingsOf(other, other.messages[at]!.id)).toEqual({ index: to % count, count });
        expect(allIds(other)).toEqual(allIds(thread));
        expect(switchBranch(other, other.messages[at]!.id, index)).toEqual(thread);
      }),
      { numRuns: 300 },
    );
  });

  it('regenerating keeps the old answer as a sibling: 2/2 on the new one, 1/2 after switching back', () => {
    let thread = createThread('t', [msg('u1', 'user'), msg('a1', 'assistant')]);
    thread = forkAt(thread, 1);
    expect(thread.messages.map((m) => m.id)).toEqual(['u1']);
    thread = { ...thread, messages: [...thread.messages, msg('a2', 'assistant')] };
    expect(siblingsOf(thread, 'a2')).toEqual({ index: 1, count: 2 });
    expect(siblingsOf(thread, 'u1')).toEqual({ index: 0, count: 1 });
    const back = switchBranch(thread, 'a2', 0);
    expect(back.messages.map((m) => m.id)).toEqual(['u1', 'a1']);
    expect(siblingsOf(back, 'a1')).toEqual({ index: 0, count: 2 });
  });

  it('editing the first message keys its versions by BRANCH_ROOT', () => {
    const thread = forkAt(createThread('t', [msg('u1', 'user'), msg('a1', 'assistant')]), 0, [msg('u2', 'user')]);
    expect(thread.branches?.[BRANCH_ROOT]).toEqual({ active: 1, others: [[msg('u1', 'user'), msg('a1', 'assistant')]] });
    expect(siblingsOf(thread, 'u2')).toEqual({ index: 1, count: 2 });
  });

  it('a regeneration whose answer never came replaces the empty version instead of adding one', () => {
    let thread = forkAt(createThread('t', [msg('u1', 'user'), msg('a1', 'assistant')]), 1);
    thread = forkAt(thread, 1);
    thread = { ...thread, messages: [...thread.messages, msg('a2', 'assistant')] };
    expect(siblingsOf(thread, 'a2')).toEqual({ index: 1, count: 2 });
  });

  it('refuses a fork or switch outside the tree with a typed error', () => {
    const thread = createThread('t', [msg('u1', 'user')]);
    for (const bad of [() => forkAt(thread, 2), () => forkAt(thread, -1), () => switchBranch(thread, 'nope', 0), () => switchBranch(thread, 'u1', 1)]) {
      expect(bad).toThrowError(expect.objectContaining({ code: 'invalid_request' }));
      expect(() => bad()).toThrow(ParlanceError);
    }
  });

  it('migrates a version 1 thread to a tree with no other versions', () => {
    const message = fc.record({ id: fc.uuid(), role: fc.constantFrom('user', 'assistant', 'tool'), text: fc.string() }).map(({ id, role, text }) => msg(id, role as Message['role'], text));
    fc.assert(
      fc.property(fc.array(message, { maxLength: 10 }), (messages) => {
        const parsed = parseThread(JSON.stringify({ version: 1, id: 't', messages }));
        expect(parsed).toEqual({ version: THREAD_VERSION, id: 't', messages });
        for (const m of messages) expect(siblingsOf(parsed, m.id)).toEqual({ index: 0, count: 1 });
      }),
      { numRuns: 100 },
    );
  });

  it('names the path of a bad message in an inactive version; the lenient parser quarantines it and keeps the rest', () => {
    const stored = {
      version: 2,
      id: 't',
      messages: [msg('u1', 'user'), msg('a2', 'assistant')],
      branches: { u1: { active: 1, others: [[{ id: 'a1', role: 'robot', parts: [] }], [msg('a0', 'assistant')]] } },
    };
    expect(() => parseThread(stored)).toThrowError(expect.objectContaining({ code: 'invalid_request', path: ['branches', 'u1', 'others', 0, 0, 'role'] }));
    const { thread, quarantined } = parseThreadLenient(stored);
    expect(thread.branches).toEqual({ u1: { active: 0, others: [[msg('a0', 'assistant')]] } });
    expect(quarantined).toEqual([expect.objectContaining({ index: -1, path: ['branches', 'u1', 'others', 0, 0, 'role'] })]);
    expect(siblingsOf(thread, 'a2')).toEqual({ index: 0, count: 2 });
  });

  it('sets aside a malformed branch entry whole (lenient) or names it (strict)', () => {
    const stored = { version: 2, id: 't', messages: [msg('u1', 'user')], branches: { u1: { active: 5, others: [] } } };
    expect(() => parseThread(stored)).toThrowError(expect.objectContaining({ path: ['branches', 'u1'] }));
    const { thread, quarantined } = parseThreadLenient(JSON.stringify({ ...stored, branches: { ...stored.branches, u9: null } }));
    expect(thread.branches).toBeUndefined();
    expect(quarantined.map((q) => q.path)).toEqual([['branches', 'u1'], ['branches', 'u9']]);
  });
});
