import { localStorageAdapter } from '@parlance/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { useChat } from '../src/use-chat.ts';
import { useThread, useThreads } from '@parlance/react/query';
import { answer, createMockServer, textOf } from './helpers.ts';

beforeEach(() => {
  localStorage.clear();
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => setTimeout(() => cb(0), 0));
});
afterEach(() => vi.unstubAllGlobals());

it('lists and loads threads from a local store, refreshed when a run finishes', async () => {
  const persist = localStorageAdapter();
  const mock = createMockServer({ onChat: (run) => (run.push(...answer('a1', ['stored'])), run.finish()) });
  const client = new QueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  const { result } = renderHook(
    () => ({
      threads: useThreads(persist),
      thread: useThread('t9', persist),
      chat: useChat({ api: '/api', fetch: mock.fetch, persist, threadId: 't9' }),
    }),
    { wrapper },
  );
  await waitFor(() => expect(result.current.threads.isSuccess && result.current.thread.isSuccess).toBe(true));
  expect(result.current.threads.data).toEqual([]);
  expect(result.current.thread.data).toBeNull();
  await waitFor(() => expect(result.current.chat.status).toBe('ready'));
  await act(() => result.current.chat.send('first question'));
  await act(() => result.current.chat.store.persisted());
  await waitFor(() => expect(result.current.threads.data).toEqual([expect.objectContaining({ id: 't9', title: 'first question' })]));
  await waitFor(() => expect(textOf(result.current.thread.data?.messages[1])).toBe('stored'));
});
