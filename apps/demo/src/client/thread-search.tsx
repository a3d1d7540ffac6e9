/**
 * The sidebar's search: while a query is typed, the thread list gives way to the threads that hold
 * it (searchThreads), each with the words around the match; Escape clears the query.
 */
import type { ThreadSummary } from '@parlance/client';
import { loadRecord } from '@parlance/client';
import type { Thread } from '@parlance/protocol';
import { type ReactNode, useDeferredValue, useEffect, useState } from 'react';
import { type SearchHit, searchThreads } from './search-threads.ts';
import { persist } from './threads.ts';

async function loadThread(id: string): Promise<Thread | undefined> {
  try {
    return loadRecord(await persist.load(id)).thread;
  } catch {
    // An unreadable record is searched by its title only.
    return undefined;
  }
}

export function ThreadSearch({ threads, open, children }: { threads: readonly ThreadSummary[]; open: (id: string) => void; children: ReactNode }) {
  const [query, setQuery] = useState('');
  const wanted = useDeferredValue(query.trim());
  const [hits, setHits] = useState<SearchHit[] | undefined>(undefined);
  // The list is a new array on every render; what it holds changes only with these.
  const key = threads.map((t) => `${t.id}\u0000${t.title ?? ''}\u0000${t.updatedAt ?? ''}`).join('\u0001');
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `threads` (a new array each render)
  useEffect(() => {
    if (!wanted) {
      setHits(undefined);
      return;
    }
    let current = true;
    void Promise.all(threads.map(async (t) => ({ id: t.id, title: t.title || 'Untitled', thread: await loadThread(t.id) }))).then((loaded) => {
      if (current) setHits(searchThreads(loaded, wanted));
    });
    return () => {
      current = false;
    };
  }, [wanted, key]);
  return (
    <>
      <input
        type="search"
        className="thread-search"
        aria-label="Search chats"
        placeholder="Search chats"
        value={query}
        onChange={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setQuery('');
        }}
      />
      {wanted ? (
        <nav aria-label="Search results">
          <ul>
            {(hits ?? []).map((hit) => (
              <li key={hit.id} className="thread-row">
                <button type="button" className="thread search-hit" onClick={() => open(hit.id)}>
                  <span className="hit-title">{hit.title}</span>
                  {hit.where === 'message' && <span className="hit-snippet">{hit.snippet}</span>}
                </button>
              </li>
            ))}
          </ul>
          {hits?.length === 0 && <p className="sidebar-note">No chat holds “{wanted}”.</p>}
        </nav>
      ) : (
        children
      )}
    </>
  );
}
