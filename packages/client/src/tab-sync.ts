/**
 * Thread changes heard across the tabs of an origin: one BroadcastChannel per page (opened while
 * someone listens), fanned out to the listeners of this page, which also hear what this page
 * announces. Stores announce each save and deletion; a store on the same thread re-reads it, and a
 * thread list refetches. Only ids and revisions travel: the record itself is read from storage.
 */

/**
 * A thread that was saved or deleted somewhere (this tab or another).
 *
 * @example
 * onThreadChange((change: ThreadChange) => change.deleted && closeTab(change.threadId));
 */
export interface ThreadChange {
  threadId: string;
  /** The revision saved (absent for a deletion). */
  revision?: number;
  deleted?: boolean;
}

const NAME = 'parlance:threads';
const listeners = /* @__PURE__ */ new Set<(change: ThreadChange, from: unknown) => void>();
let channel: BroadcastChannel | undefined;

const hasChannel = () => typeof BroadcastChannel === 'function';

/**
 * Calls `listener` for every thread saved or deleted in this tab or another tab of the origin;
 * returns the unsubscribe function. The second argument is who announced it in this page (a store
 * ignores its own), `undefined` for another tab.
 *
 * @example
 * const off = onThreadChange(({ threadId }) => queryClient.invalidateQueries({ queryKey: ['threads'] }));
 */
export function onThreadChange(listener: (change: ThreadChange, from: unknown) => void): () => void {
  if (!listeners.size && hasChannel()) {
    channel = new BroadcastChannel(NAME);
    channel.onmessage = (event: MessageEvent<ThreadChange>) => {
      if (typeof event.data?.threadId === 'string') for (const l of listeners) l(event.data, undefined);
    };
  }
  listeners.add(listener);
  return () => {
    if (listeners.delete(listener) && !listeners.size) {
      channel?.close();
      channel = undefined;
    }
  };
}

/**
 * Tells this page's listeners and every other tab that a thread changed (`from`: who in this page).
 *
 * @example
 * await persist.remove?.(id);
 * announceThreadChange({ threadId: id, deleted: true });
 */
export function announceThreadChange(change: ThreadChange, from?: unknown): void {
  for (const l of listeners) l(change, from);
  if (!hasChannel()) return;
  const c = channel ?? new BroadcastChannel(NAME);
  c.postMessage(change);
  if (c !== channel) c.close();
}
