import type { ChatStore } from '@parlance/client';
import { createContext, createElement, useContext, type ReactNode } from 'react';

const ChatContext = createContext<ChatStore | null>(null);

/** Makes a chat's store available to `useMessage` / `useThreadMessageIds` below it. */
export function ChatProvider(props: { store: ChatStore; children?: ReactNode }): ReactNode {
  return createElement(ChatContext.Provider, { value: props.store }, props.children);
}

export function useChatStore(store?: ChatStore): ChatStore {
  const fromContext = useContext(ChatContext);
  const found = store ?? fromContext;
  if (!found) throw new Error('useMessage / useThreadMessageIds need a store: pass one, or render inside <ChatProvider store={chat.store}>');
  return found;
}
