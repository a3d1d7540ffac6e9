/**
 * Search across the saved threads: a thread matches when its title or the text of one of its
 * messages holds every word of the query (case and accents ignored); the hit shows where.
 */
import { messageText, type Thread } from '@parlance/protocol';

/** At most this many threads are listed for one query (the newest first, as the list is sorted). */
export const MAX_SEARCH_HITS = 50;
/** Characters shown around the first match. */
const SNIPPET = 90;

/**
 * One thread that matches, and the words around the match.
 *
 * @example
 * const hit: SearchHit = { id: 'th_1', title: 'Trip', snippet: '…the weather in Paris is…', where: 'message' };
 */
export interface SearchHit {
  id: string;
  title: string;
  snippet: string;
  where: 'title' | 'message';
}

/** Lower case without accents, so "Café" is found by "cafe". The same length as the input for Latin text. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function words(query: string): string[] {
  return fold(query).split(/\s+/).filter(Boolean);
}

function snippetAt(text: string, index: number): string {
  const flat = text.replace(/\s+/g, ' ');
  const start = Math.max(0, index - SNIPPET / 3);
  const end = Math.min(flat.length, start + SNIPPET);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

/**
 * The threads that hold every word of `query`, in the order given, at most `MAX_SEARCH_HITS`.
 *
 * @example
 * searchThreads([{ id: 't1', title: 'Paris', thread }], 'weather paris'); // [{ id: 't1', title: 'Paris', where: 'message', snippet: 'weather in Paris' }]
 */
export function searchThreads(threads: readonly { id: string; title: string; thread: Thread | undefined }[], query: string): SearchHit[] {
  const wanted = words(query);
  if (wanted.length === 0) return [];
  const hits: SearchHit[] = [];
  for (const { id, title, thread } of threads) {
    if (hits.length >= MAX_SEARCH_HITS) break;
    const texts = (thread?.messages ?? []).filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => messageText(m));
    const all = fold([title, ...texts].join('\n'));
    if (!wanted.every((word) => all.includes(word))) continue;
    const first = wanted[0]!;
    const inTitle = fold(title).indexOf(first);
    if (inTitle >= 0) {
      hits.push({ id, title, snippet: title, where: 'title' });
      continue;
    }
    const text = texts.find((t) => fold(t).includes(first)) ?? texts[0] ?? '';
    hits.push({ id, title, snippet: snippetAt(text, Math.max(0, fold(text).indexOf(first))), where: 'message' });
  }
  return hits;
}
