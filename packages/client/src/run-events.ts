/** Runs ending anywhere in the page, so caches of thread lists and threads can be refreshed (see @parlance/react's useThreads). */
import type { HaltReason, Thread } from '@parlance/protocol';

/**
 * What `onRunFinish` listeners get.
 *
 * @example
 * onRunFinish((info: RunFinish) => console.log(info.threadId, info.haltReason));
 */
export interface RunFinish {
  threadId: string;
  thread: Thread;
  haltReason: HaltReason;
}

const listeners = /* @__PURE__ */ new Set<(info: RunFinish) => void>();

/**
 * Calls `listener` whenever a chat run in this page ends; returns the unsubscribe function.
 *
 * @example
 * const off = onRunFinish(({ threadId, haltReason }) => console.log(threadId, haltReason));
 * // later: off();
 */
export function onRunFinish(listener: (info: RunFinish) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function emitRunFinish(info: RunFinish): void {
  for (const listener of listeners) listener(info);
}
