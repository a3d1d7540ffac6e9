/**
 * Branching threads: editing a message or regenerating an answer keeps the old version.
 *
 * The thread stays linear where it matters: `thread.messages` is the active path (what
 * the model sees, what signatures cover, what every dialect encodes). The other versions
 * live beside it in `thread.branches`, keyed by the message the versions follow (their
 * fork point; `BRANCH_ROOT` when the first message itself has versions). Each version is
 * the linear tail from the fork point to that version's end, so a version switched back
 * in sits at the very positions it had when it was written (its signatures still hold),
 * and forks inside an inactive tail keep their own entries, keyed by their own parents.
 */
import { ParlanceError } from './error.ts';
import type { Message } from './message.ts';
import type { Thread, ThreadBranch } from './thread-shape.ts';

/**
 * The key of the versions of a thread's first message (message ids are never empty).
 *
 * @example
 * const firstMessageVersions = thread.branches?.[BRANCH_ROOT];
 */
export const BRANCH_ROOT = '';

/**
 * Where a message stands among its versions: `index` (0-based) of `count` (`1/3` is `{ index: 0, count: 3 }`).
 *
 * @example
 * const { index, count } = siblingsOf(thread, message.id);
 * if (count > 1) label = `${index + 1}/${count}`;
 */
export interface Siblings {
  index: number;
  count: number;
}

const refuse = (message: string, path: (string | number)[] = []): ParlanceError => new ParlanceError('invalid_request', message, { path, retryable: false });

/** The key of the versions that start at `index` on the active path. */
function keyAt(messages: readonly Message[], index: number): string {
  return index === 0 ? BRANCH_ROOT : messages[index - 1]!.id;
}

function branchAt(thread: Thread, key: string): ThreadBranch | undefined {
  return thread.branches && Object.hasOwn(thread.branches, key) ? thread.branches[key] : undefined;
}

function withBranch(thread: Thread, key: string, branch: ThreadBranch): Thread {
  return { ...thread, branches: { ...thread.branches, [key]: branch } };
}

/**
 * The versions a message on the active path has (`{ index: 0, count: 1 }` when it was never edited or regenerated).
 *
 * @example
 * const { index, count } = siblingsOf(thread, 'a2'); // { index: 1, count: 3 } shows as "‹ 2/3 ›"
 */
export function siblingsOf(thread: Thread, messageId: string): Siblings {
  const at = thread.messages.findIndex((m) => m.id === messageId);
  const branch = at < 0 ? undefined : branchAt(thread, keyAt(thread.messages, at));
  return branch ? { index: branch.active, count: branch.others.length + 1 } : { index: 0, count: 1 };
}

/**
 * Starts a new version at `index` of the active path: what was there from `index` on is kept
 * as a sibling version, and the active path becomes the messages before `index` plus `messages`
 * (none for a regeneration, whose answer the next run appends). The new version is the last.
 * Throws a ParlanceError (`invalid_request`) for an index outside the path.
 *
 * @example
 * // Edit the user message at position 2: the old one and what followed it stay a sibling.
 * const edited = forkAt(thread, 2, [{ id: 'u2b', role: 'user', parts: [{ type: 'text', text: 'Actually…' }] }]);
 */
export function forkAt(thread: Thread, index: number, messages: readonly Message[] = []): Thread {
  const path = thread.messages;
  if (!Number.isInteger(index) || index < 0 || index > path.length) throw refuse(`Cannot fork at ${index}: the thread has ${path.length} messages`);
  const next: Thread = { ...thread, messages: [...path.slice(0, index), ...messages] };
  const tail = path.slice(index);
  // Nothing was there (say a regeneration whose answer failed): the new version takes the empty one's place.
  if (!tail.length) return next;
  const key = keyAt(path, index);
  const branch = branchAt(thread, key);
  const versions = branch ? [...branch.others.slice(0, branch.active), tail, ...branch.others.slice(branch.active)] : [tail];
  return withBranch(next, key, { active: versions.length, others: versions });
}

/**
 * Puts version `index` (0-based) of the message `messageId` (on the active path) on the active
 * path; the version that was there is kept as a sibling. Throws a ParlanceError
 * (`invalid_request`) when the message is not on the path or has no such version.
 *
 * @example
 * const { index, count } = siblingsOf(thread, 'a2');
 * if (index + 1 < count) thread = switchBranch(thread, 'a2', index + 1); // the "›" arrow
 */
export function switchBranch(thread: Thread, messageId: string, index: number): Thread {
  const path = thread.messages;
  const at = path.findIndex((m) => m.id === messageId);
  if (at < 0) throw refuse(`Message ${messageId} is not on the thread's active path`);
  const key = keyAt(path, at);
  const branch = branchAt(thread, key) ?? { active: 0, others: [] };
  const count = branch.others.length + 1;
  if (!Number.isInteger(index) || index < 0 || index >= count) throw refuse(`Message ${messageId} has ${count} version(s); there is no version ${index}`);
  if (index === branch.active) return thread;
  const versions = [...branch.others.slice(0, branch.active), path.slice(at), ...branch.others.slice(branch.active)];
  const chosen = versions.splice(index, 1)[0]!;
  return withBranch({ ...thread, messages: [...path.slice(0, at), ...chosen] }, key, { active: index, others: versions });
}
