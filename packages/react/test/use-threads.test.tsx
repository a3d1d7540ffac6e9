import { RECORD_VERSION, localStorageAdapter, type ChatRecord } from '@parlance/client';
import { createThread } from '@parlance/protocol';
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

it('refetches the list when another tab saves or deletes a thread (BroadcastChannel), with no run finishing in this page', async () => {
  const persist = localStorageAdapter();
  const client = new QueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  const { result } = renderHook(() => ({ threads: useThreads(persist), thread: useThread('other', persist) }), { wrapper });
  await waitFor(() => expect(result.current.threads.data).toEqual([]));
  // Another tab: its own adapter over the same storage, and its own channel.
  const otherTab = localStorageAdapter();
  const channel = new BroadcastChannel('parlance:threads');
  const record: ChatRecord = { version: RECORD_VERSION, thread: createThread('other', [{ id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'from the other tab' }] }]), revision: 1, writer: 'b' };
  await otherTab.save('other', record, '');
  channel.postMessage({ threadId: 'other', revision: 1 });
  await waitFor(() => expect(result.current.threads.data).toEqual([expect.objectContaining({ id: 'other', title: 'from the other tab' })]));
  await waitFor(() => expect(result.current.thread.data?.messages).toHaveLength(1));
  await otherTab.remove!('other');
  channel.postMessage({ threadId: 'other', deleted: true });
  await waitFor(() => expect(result.current.threads.data).toEqual([]));
  await waitFor(() => expect(result.current.thread.data).toBeNull());
  channel.close();
});
