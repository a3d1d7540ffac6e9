// What a browser sees when the server's run store reports trouble (issue #13): the server
// instance running the reply died (run_lost, written by the instance the client resumed on),
// or the store is down before a run starts (store_unavailable). Typed errors, nothing lost.
import { errorEvent } from '@parlance/protocol';
import { expect, it } from 'vitest';
import { ChatStore } from '../src/chat-store.ts';
import { answer, createMockServer, type MockServerOptions, until } from './mock-server.ts';

function setup(server: MockServerOptions) {
  const mock = createMockServer(server);
  let n = 0;
  const store = new ChatStore({ api: '/api', fetch: mock.fetch, retryDelayMs: 0, threadId: 't', generateId: () => `id${++n}` });
  store.schedule = (flush) => queueMicrotask(flush);
  store.connect();
  const text = (id: string) => store.getMessage(id)?.parts.map((p) => ('text' in p ? p.text : '')).join('');
  return { mock, store, text };
}

it('a run whose server died ends in a typed run_lost error after a resume, keeping the partial answer', async () => {
  const { mock, store, text } = setup({ chunkBytes: 5, onChat: (run) => run.push(...answer('a1', ['par', 'tial']).slice(0, 5)) });
  void store.send('go');
  await until(() => text('a1') === 'partial');
  const run = mock.runs[0]!;
  run.drop(); // the connection to the instance that died
  // The instance the client resumes on finds the lease lapsed and ends the run as lost.
  run.push(errorEvent({ code: 'run_lost', message: 'The server running this reply stopped before it finished; what was received is kept.', retryable: true }));
  run.push({ type: 'chat-finish', haltReason: 'error', usage: {}, error: { code: 'run_lost', message: 'The server running this reply stopped' } });
  await store.idle();
  expect(store.getSnapshot()).toMatchObject({ status: 'error', haltReason: 'error', error: { code: 'run_lost' } });
  expect(text('a1')).toBe('partial');
  expect(mock.requests.some((r) => r.path === '/api/runs/run_1/events')).toBe(true);
});

it('a store that is down is a typed, retryable store_unavailable error, and the message is kept to retry', async () => {
  let down = true;
  const { store } = setup({
    chatError: () => (down ? { status: 503, code: 'store_unavailable', message: 'The run store is not available' } : undefined),
    onChat: (run) => {
      run.push(...answer('a1', ['back']));
      run.finish();
    },
  });
  await store.send('hi');
  expect(store.getSnapshot()).toMatchObject({ status: 'error', error: { code: 'store_unavailable', status: 503, retryable: true } });
  // The message is kept, with the failed turn marked after it (so a new message is not merged into it).
  expect(store.getSnapshot().thread.messages.map((m) => [m.role, m.error?.code])).toEqual([
    ['user', undefined],
    ['assistant', 'store_unavailable'],
  ]);
  down = false;
  await store.retry();
  expect(store.getSnapshot().status).toBe('ready');
  expect(store.getSnapshot().thread.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  expect(store.getSnapshot().thread.messages.some((m) => m.error)).toBe(false);
});

it.each(['not_found', 'run_expired'] as const)('retry() after a resume answered %s starts a fresh run from the thread, not the same run id', async (code) => {
  const { mock, store, text } = setup({
    onChat: (run) => {
      // The first run streams part of an answer; the fresh one answers in full.
      if (run.id === 'run_1') run.push(...answer('a1', ['par', 'tial']).slice(0, 5));
      else {
        run.push(...answer('a2', ['whole']));
        run.finish();
      }
    },
  });
  void store.send('go');
  await until(() => text('a1') === 'partial');
  mock.runs[0]!.vanish(code); // e.g. Redis restarted without persistence, or the run was evicted
  await store.idle();
  expect(store.getSnapshot()).toMatchObject({ status: 'error', error: { code } });
  const resumes = () => mock.requests.filter((r) => r.path === '/api/runs/run_1/events').length;
  const before = resumes();
  await store.retry();
  expect(resumes()).toBe(before);
  expect(mock.runs.map((r) => r.id)).toEqual(['run_1', 'run_2']);
  // The fresh run was sent the thread the first one started from (the user message), not the partial answer.
  expect((mock.runs[1]!.body.thread?.messages ?? []).map((m) => m.role)).toEqual(['user']);
  expect(store.getSnapshot()).toMatchObject({ status: 'ready' });
  expect(store.getSnapshot().thread.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  expect(text('a2')).toBe('whole');
  expect(store.getMessage('a1')).toBeUndefined();
});
