import type { ChatStore } from '@parlance/client';
import { createContext, createElement, useContext, type ReactNode } from 'react';

const ChatContext = createContext<ChatStore | null>(null);

/**
 * Makes a chat's store available to `useMessage` / `useThreadMessageIds` below it.
 *
 * @example
 * const chat = useChat({ api: '/api/chat' });
 * return <ChatProvider store={chat.store}><Messages /></ChatProvider>;
 */
export function ChatProvider(props: { store: ChatStore; children?: ReactNode }): ReactNode {
  return createElement(ChatContext.Provider, { value: props.store }, props.children);
}

/**
 * The chat store from the nearest `ChatProvider` (or the one passed); throws when there is none.
 *
 * @example
 * const store = useChatStore();
 * const status = useSyncExternalStore(store.subscribe, () => store.getSnapshot().status);
 */
export function useChatStore(store?: ChatStore): ChatStore {
  const fromContext = useContext(ChatContext);
  const found = store ?? fromContext;
  if (!found) throw new Error('useMessage / useThreadMessageIds need a store: pass one, or render inside <ChatProvider store={chat.store}>');
  return found;
}
