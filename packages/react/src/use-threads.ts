/**
 * Thread lists and threads through TanStack Query, from a server or a local store
 * (any persistence adapter with `list`). Runs finishing anywhere in the page, and
 * threads saved or deleted in this tab or another one (`onThreadChange`), invalidate
 * them, so a title, a new thread or a deletion shows up without a manual refetch.
 */
import { loadRecord, onRunFinish, onThreadChange, type ThreadSummary } from '@parlance/client';
import type { Thread } from '@parlance/protocol';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';

/**
 * Where `useThreads` / `useThread` read threads: any persistence adapter with `list` (localStorage, IndexedDB), or your server.
 *
 * @example
 * const source: ThreadSource = { list: () => fetch('/api/threads').then((r) => r.json()), load: (id) => fetch(`/api/threads/${id}`).then((r) => r.json()) };
 */
export interface ThreadSource {
  list(): Promise<ThreadSummary[]>;
  /** A stored record, a thread, or its JSON; undefined/null when there is none. */
  load(id: string): unknown;
}

/**
 * The query keys `useThreads` / `useThread` use, to invalidate them yourself.
 *
 * @example
 * void queryClient.invalidateQueries({ queryKey: threadKeys.all });
 */
export const threadKeys = {
  all: ['parlance', 'threads'] as const,
  thread: (id: string) => ['parlance', 'threads', id] as const,
};

function useInvalidateOnFinish(key: readonly unknown[], threadId?: string): void {
  const client = useQueryClient();
  const k = JSON.stringify(key);
  useEffect(() => {
    const refresh = (id: string) => {
      if (threadId === undefined || id === threadId) void client.invalidateQueries({ queryKey: JSON.parse(k) });
    };
    const offs = [onRunFinish((info) => refresh(info.threadId)), onThreadChange((change) => refresh(change.threadId))];
    return () => {
      for (const off of offs) off();
    };
  }, [client, k, threadId]);
}

/**
 * The list of stored threads (TanStack Query), refetched when any run in the page finishes and
 * when a thread is saved (a new message, a run starting or ending) or deleted in any tab.
 *
 * @example
 * const threads = useThreads(localStorageAdapter());
 * return <ul>{threads.data?.map((t) => <li key={t.id}>{t.title}</li>)}</ul>;
 */
export function useThreads(source: ThreadSource) {
  useInvalidateOnFinish(threadKeys.all);
  return useQuery({ queryKey: threadKeys.all, queryFn: () => source.list() });
}

/**
 * One stored thread (TanStack Query), refetched when a run of that thread finishes or it is saved or deleted in any tab (a deleted one loads as null).
 *
 * @example
 * const { data: thread } = useThread(threadId, localStorageAdapter());
 */
export function useThread(id: string, source: ThreadSource) {
  useInvalidateOnFinish(threadKeys.thread(id), id);
  return useQuery({
    queryKey: threadKeys.thread(id),
    queryFn: async (): Promise<Thread | null> => {
      const stored = await source.load(id);
      if (stored == null) return null;
      const record = loadRecord(stored);
      return record.deleted ? null : record.thread;
    },
  });
}
