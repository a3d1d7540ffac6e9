/**
 * Per-message subscriptions: a list built from `useThreadMessageIds()` with rows
 * that call `useMessage(id)` renders each finished message once; streaming text
 * re-renders only its own row, at most once per animation frame (the store batches).
 */
import type { ChatStore } from '@parlance/client';
import type { Message, Part } from '@parlance/protocol';
import { useCallback, useSyncExternalStore } from 'react';
import { useChatStore } from './context.ts';

export function useMessage(id: string, store?: ChatStore): Message | undefined {
  const s = useChatStore(store);
  const subscribe = useCallback((listener: () => void) => s.subscribeMessage(id, listener), [s, id]);
  const get = () => s.getMessage(id);
  return useSyncExternalStore(subscribe, get, get);
}

export function useMessagePart(id: string, index: number, store?: ChatStore): Part | undefined {
  const s = useChatStore(store);
  const subscribe = useCallback((listener: () => void) => s.subscribePart(id, index, listener), [s, id, index]);
  const get = () => s.getPart(id, index);
  return useSyncExternalStore(subscribe, get, get);
}

/** The thread's message ids: a new array only when a message is added or removed. */
export function useThreadMessageIds(store?: ChatStore): string[] {
  const s = useChatStore(store);
  return useSyncExternalStore(s.subscribe, s.getMessageIds, s.getMessageIds);
}
