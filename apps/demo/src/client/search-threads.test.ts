import type { Thread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_HITS, searchThreads } from './search-threads.ts';

const thread = (id: string, ...texts: string[]): Thread =>
  ({
    id,
    messages: texts.map((text, i) => ({ id: `${id}-${i}`, role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text }] })),
  }) as Thread;

const threads = [
  { id: 'a', title: 'Trip planning', thread: thread('a', 'weather in Paris', 'It is **21°C** and sunny in Paris today.') },
  { id: 'b', title: 'Café notes', thread: thread('b', 'roll 2 dice', 'You rolled 3 and 5.') },
  { id: 'c', title: 'Long one', thread: thread('c', 'long', `${'filler words here '.repeat(20)}the needle is here${' and more after'.repeat(20)}`) },
  { id: 'd', title: 'Unsaved', thread: undefined },
];

describe('searchThreads', () => {
  it.each([
    ['paris', ['a']],
    ['PARIS sunny', ['a']],
    ['cafe', ['b']],
    ['rolled 5', ['b']],
    ['paris dice', []],
    ['needle', ['c']],
    ['   ', []],
    ['unsaved', ['d']],
  ])('%j finds %j', (query, ids) => {
    expect(searchThreads(threads, query).map((h) => h.id)).toEqual(ids);
  });

  it('says where it matched: the title, or a snippet around the first word in a message', () => {
    expect(searchThreads(threads, 'trip')[0]).toMatchObject({ where: 'title', snippet: 'Trip planning' });
    expect(searchThreads(threads, 'sunny')[0]).toMatchObject({ where: 'message', snippet: 'It is **21°C** and sunny in Paris today.' });
    const long = searchThreads(threads, 'needle')[0]!;
    expect(long.snippet).toMatch(/^….*the needle is here.*…$/);
    expect(long.snippet.length).toBeLessThanOrEqual(92);
  });

  it(`lists at most ${MAX_SEARCH_HITS} threads`, () => {
    const many = Array.from({ length: 80 }, (_, i) => ({ id: `t${i}`, title: `chat ${i}`, thread: thread(`t${i}`, 'same words') }));
    expect(searchThreads(many, 'same')).toHaveLength(MAX_SEARCH_HITS);
  });
});
