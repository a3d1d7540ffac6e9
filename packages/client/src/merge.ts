/**
 * Two tabs' copies of one thread, merged three ways by message id, so a save never drops what
 * another tab wrote. `base` is the copy both started from (what this tab last loaded or saved),
 * `mine` this tab's, `theirs` the stored one.
 *
 * - A message one side added is kept. Appends from both sides after the same message stay two
 *   turns, theirs first, then mine (the stored order wins: it is what other tabs already show);
 *   the rest of a turn (an answer saved after its question) stays right after it.
 * - A message one side removed since `base` (a failed turn dropped by `retry`) stays removed.
 * - A message both have: the side that changed it since `base` (by content) wins (the tab streaming it).
 * - Versions (edits, regenerations, `switchBranch`): the side whose `branches` changed since
 *   `base` gives the shape (which version is active); what the other side added is grafted onto
 *   it, and a version the other side made becomes one more version at its fork point.
 */
import { BRANCH_ROOT, type Message, type Thread, type ThreadBranch } from '@parlance/protocol';

/**
 * The merged thread, and whether `mine` brought anything `theirs` lacks (then it must be saved).
 *
 * @example
 * const { thread, local } = mergeThreads(base, mine, stored);
 * if (local) await persist.save(thread.id, toRecord(thread, undefined, [], []), revision);
 */
export interface MergedThread {
  thread: Thread;
  /** `mine` brought something `theirs` lacks. */
  local: boolean;
  /** `theirs` brought something `mine` lacks. */
  remote: boolean;
}

/** Every message of a thread by id: the active path and every stored version. */
function index(thread: Thread | undefined): Map<string, Message> {
  const out = new Map<string, Message>();
  if (!thread) return out;
  for (const m of thread.messages) out.set(m.id, m);
  for (const branch of Object.values(thread.branches ?? {})) for (const version of branch.others) for (const m of version) out.set(m.id, m);
  return out;
}

/** The sequences of a thread: the active path (after `BRANCH_ROOT`), then each version after its fork point. */
function sequences(thread: Thread): { after: string; messages: Message[] }[] {
  const out = [{ after: BRANCH_ROOT, messages: thread.messages }];
  for (const [after, branch] of Object.entries(thread.branches ?? {})) for (const messages of branch.others) out.push({ after, messages });
  return out;
}

const json = (value: unknown) => JSON.stringify(value ?? null);

/**
 * Merges two copies of one thread by message id (see the file comment for the rules); pure.
 *
 * @example
 * // Tab 1 stored [seed, a1, a1r]; this tab, which started from [seed], has [seed, b1, b1r].
 * const { thread } = mergeThreads(base, mine, stored); // [seed, a1, a1r, b1, b1r]
 */
export function mergeThreads(base: Thread | undefined, mine: Thread, theirs: Thread): MergedThread {
  if (mine === theirs) return { thread: theirs, local: false, remote: false };
  const [was, ours, their] = [index(base), index(mine), index(theirs)];
  let local = false;
  let remote = false;
  const changed = (side: Thread) => side.branches !== base?.branches && json(side.branches) !== json(base?.branches);
  // Who gives the shape: theirs, unless only this tab changed versions since base.
  const mineShapes = changed(mine) && !changed(theirs);
  const [shape, other, shapeIndex] = mineShapes ? [mine, theirs, ours] : [theirs, mine, their];
  if (mineShapes) local = true;
  else if (changed(theirs)) remote = true;
  const removed = new Set([...was.keys()].filter((id) => !ours.has(id) || !their.has(id)));
  for (const id of their.keys()) if (!ours.has(id) && !was.has(id)) remote = true;
  for (const id of ours.keys()) if (!their.has(id) && !was.has(id)) local = true;
  for (const id of removed) {
    if (ours.has(id)) remote = true;
    if (their.has(id)) local = true;
  }

  // The result, as mutable copies of the shape's sequences.
  const active = [...shape.messages];
  const branches: Record<string, ThreadBranch> = {};
  for (const [key, branch] of Object.entries(shape.branches ?? {})) branches[key] = { active: branch.active, others: branch.others.map((v) => [...v]) };
  const all = () => [active, ...Object.values(branches).flatMap((b) => b.others)];
  const find = (id: string) => {
    for (const seq of all()) {
      const at = seq.findIndex((m) => m.id === id);
      if (at >= 0) return { seq, at };
    }
    return undefined;
  };
  /** The first message of every version `side` keeps after `after`, the active one included. */
  const starts = (side: Thread, after: string): Set<string> => {
    const out = new Set<string>();
    const branch = side.branches && Object.hasOwn(side.branches, after) ? side.branches[after] : undefined;
    if (!branch) return out;
    for (const version of branch.others) if (version[0]) out.add(version[0].id);
    const at = after === BRANCH_ROOT ? 0 : side.messages.findIndex((m) => m.id === after) + 1;
    if (at > 0 || after === BRANCH_ROOT) {
      const next = side.messages[at];
      if (next) out.add(next.id);
    }
    return out;
  };

  // Graft what the other side added (and the shape lacks): each run of new messages after its predecessor.
  for (const { after, messages } of sequences(other)) {
    for (let i = 0; i < messages.length; ) {
      const id = messages[i]!.id;
      if (shapeIndex.has(id) || was.has(id)) {
        i++;
        continue;
      }
      let j = i;
      while (j < messages.length && !shapeIndex.has(messages[j]!.id) && !was.has(messages[j]!.id)) j++;
      const run = messages.slice(i, j);
      const before = i === 0 ? after : messages[i - 1]!.id;
      const successor = messages[j]?.id;
      i = j;
      if (other === mine) local = true;
      else remote = true;
      const at = before === BRANCH_ROOT ? { seq: active, at: -1 } : find(before);
      const next = at?.seq[at.at + 1];
      // A version made at this fork point on the other side: one more version, not an append.
      const versions = starts(other, before);
      if (at && next && versions.has(run[0]!.id) && (versions.has(next.id) || starts(shape, before).size > 0)) {
        const branch = (branches[before] ??= { active: 0, others: [] });
        // A version of a message inside an inactive version is keyed by its own parent too (branches.ts).
        branch.others.push(run);
        continue;
      }
      const seq = at?.seq ?? active;
      let q = successor === undefined ? -1 : seq.findIndex((m) => m.id === successor);
      if (q <= (at?.at ?? -1)) {
        // A new turn goes after every turn the shape has; the rest of a turn (an answer) stays with it.
        q = seq.length;
        if (run[0]!.role !== 'user' && at) for (q = at.at + 1; q < seq.length && seq[q]!.role !== 'user'; q++);
      }
      seq.splice(q, 0, ...run);
    }
  }

  // Both sides' deletions since base hold; the content of a message both have is the changed side's.
  const pick = (m: Message): Message => {
    const a = ours.get(m.id);
    const b = their.get(m.id);
    if (!a || !b || a === b) return m;
    // Changed since base by content, not identity: a tab's state and its base are often two copies
    // of one stored record (one parsed from storage), and an unchanged copy must not win.
    const w = was.get(m.id);
    if (a !== w && (w === undefined || json(a) !== json(w))) {
      if (json(a) !== json(b)) local = true;
      return a;
    }
    if (json(a) !== json(b)) remote = true;
    return b;
  };
  const clean = (seq: Message[]) => seq.filter((m) => !removed.has(m.id)).map(pick);
  const thread: Thread = { ...shape, messages: clean(active) };
  delete thread.branches;
  for (const [key, branch] of Object.entries(branches)) {
    let activeAt = branch.active;
    const others: Message[][] = [];
    branch.others.forEach((version, v) => {
      const kept = clean(version);
      if (kept.length) others.push(kept);
      else if (v < branch.active) activeAt--;
    });
    if (others.length) (thread.branches ??= {})[key] = { active: Math.min(activeAt, others.length), others };
  }
  const metadata = mine.metadata !== base?.metadata && json(mine.metadata) !== json(theirs.metadata) ? mine.metadata : theirs.metadata;
  if (metadata === undefined) delete thread.metadata;
  else {
    if (metadata === mine.metadata && metadata !== theirs.metadata) local = true;
    thread.metadata = metadata;
  }
  if (json(mine.metadata) !== json(thread.metadata)) remote = true;
  return { thread, local, remote };
}
