/**
 * useChat: glue over ChatStore (TanStack Query's useBaseQuery pattern). The store is
 * created once per thread id; option changes are pushed into it after each render,
 * and every action reads them when it runs, so callbacks never see stale options.
 */
import { ChatStore, type ChatOptions } from '@parlance/client';
import { useEffect, useState, useSyncExternalStore } from 'react';

export type UseChatOptions = ChatOptions;

export function useChat(options: UseChatOptions) {
  const [holder, setHolder] = useState(() => ({ store: new ChatStore(options), threadId: options.threadId }));
  let { store } = holder;
  if (holder.threadId !== options.threadId) {
    store = new ChatStore(options);
    setHolder({ store, threadId: options.threadId });
  }
  useEffect(() => store.setOptions(options));
  useEffect(() => store.connect(), [store]);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  return {
    ...state,
    messages: state.thread.messages,
    send: store.send,
    stop: store.stop,
    regenerate: store.regenerate,
    retry: store.retry,
    submitToolResult: store.submitToolResult,
    approve: store.approve,
    deny: store.deny,
    answer: store.answer,
    setThread: store.setThread,
    store,
  };
}
