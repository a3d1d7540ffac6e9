/**
 * The thread as data: its format version, the active path and the inactive branches. A leaf
 * (it names only messages): thread.ts (create, serialize, parse), branches.ts (fork, switch) and
 * the schemas all take the shape from here, so none of them imports another in a circle.
 */
import type { Message } from './message.ts';

/**
 * The thread format written today (`parseThread` migrates older ones).
 *
 * @example
 * if (stored.version > THREAD_VERSION) showUpgradeNotice();
 */
export const THREAD_VERSION = 2;

/**
 * A conversation: versioned, serializable, the same shape in the browser, on the server and in storage.
 *
 * @example
 * const thread: Thread = createThread('t1');
 * localStorage.setItem('t1', serializeThread(thread));
 */
export interface Thread {
  /** 2 since threads branch; a version 1 thread (linear, no `branches`) is still a valid value. */
  version: typeof THREAD_VERSION | 1;
  id: string;
  /** The active path: the linear conversation the model sees (see branches.ts). */
  messages: Message[];
  /** The inactive versions of edited or regenerated messages, keyed by the message they follow. */
  branches?: Record<string, ThreadBranch>;
  metadata?: Record<string, unknown>;
}

/**
 * The versions that follow one fork point: which one is on the active path, and the others.
 *
 * @example
 * const branch: ThreadBranch = { active: 1, others: [[{ id: 'a1', role: 'assistant', parts: [] }]] };
 */
export interface ThreadBranch {
  /** The position (0-based, in the order versions were written) of the version on the active path. */
  active: number;
  /** Every other version in order, each the linear tail of messages from the fork point to its end. */
  others: Message[][];
}
