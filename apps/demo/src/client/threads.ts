/**
 * Where the browser keeps the demo's chats: one localStorage record per thread
 * (@parlance/client's adapter), the open thread in the URL hash (so a reload opens
 * it again) and the chosen model in localStorage.
 */
import { localStorageAdapter } from '@parlance/client';

export const persist = localStorageAdapter({ prefix: 'parlance-demo:thread:' });

const MODEL_KEY = 'parlance-demo:model';

export function newThreadId(): string {
  return `th_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

export function threadFromHash(): string | undefined {
  const match = /^#\/t\/([\w-]+)$/.exec(location.hash);
  return match?.[1];
}

export function openThread(id: string, replace = false): void {
  const url = `#/t/${id}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
}

export function savedModel(): string | undefined {
  return localStorage.getItem(MODEL_KEY) ?? undefined;
}

export function saveModel(id: string): void {
  localStorage.setItem(MODEL_KEY, id);
}

const TITLES_KEY = 'parlance-demo:titles';

/**
 * Names the user gave threads, kept beside the chats rather than inside them: the open
 * chat's store saves its own thread, and a title written into that record would be lost
 * on its next save.
 */
export function threadTitles(): Record<string, string> {
  try {
    const parsed = JSON.parse(localStorage.getItem(TITLES_KEY) ?? '{}') as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function renameThread(id: string, title: string): void {
  const titles = threadTitles();
  const name = title.trim();
  if (name) titles[id] = name;
  else delete titles[id];
  localStorage.setItem(TITLES_KEY, JSON.stringify(titles));
}

/** Calls `listener` when another tab renames a thread (a `storage` event on the titles key). */
export function onTitlesChange(listener: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key === TITLES_KEY || event.key === null) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}

/** Deletes a thread: the adapter leaves a tombstone (no stale tab can save it back) and tells every tab. */
export async function deleteThread(id: string): Promise<void> {
  await persist.remove?.(id);
  renameThread(id, '');
}
