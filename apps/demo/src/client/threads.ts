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
