import { expect, it } from 'vitest';
import { createMemoryRunStore } from './run-store.ts';

const record = (id: string) => ({ id, requestKey: `k:${id}`, status: 'running' as const, createdAt: 0 });

it('forgets finished runs after their retention, and never running ones', async () => {
  let clock = 0;
  const store = createMemoryRunStore({ retainMs: 100, now: () => clock });
  await store.create(record('a'));
  await store.create(record('b'));
  await store.finish('a');
  clock = 500;
  await store.create(record('c'));
  expect(await store.get('a')).toBeUndefined();
  expect(await store.findByRequestKey('k:a')).toBeUndefined();
  expect(await store.get('b')).toBeDefined();
  expect(store.size()).toBe(2);
});

it('caps the number of runs, dropping the oldest finished first', async () => {
  const store = createMemoryRunStore({ maxRuns: 3 });
  for (const id of ['a', 'b', 'c']) await store.create(record(id));
  await store.finish('b');
  await store.finish('c');
  await store.create(record('d'));
  expect(store.size()).toBe(3);
  expect(await store.get('a')).toBeDefined();
  expect(await store.get('b')).toBeUndefined();
});

it('follows stored then live events and ends when the run finishes', async () => {
  const store = createMemoryRunStore();
  await store.create(record('r'));
  await store.append('r', { type: 'step-start', step: 0 });
  const seen: number[] = [];
  const reading = (async () => {
    for await (const { seq } of store.follow('r', -1)) seen.push(seq);
  })();
  await store.append('r', { type: 'message-start' });
  await store.finish('r');
  await reading;
  expect(seen).toEqual([0, 1]);
});
