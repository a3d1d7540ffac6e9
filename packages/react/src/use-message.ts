/**
 * Per-message subscriptions: a list built from `useThreadMessageIds()` with rows
 * that call `useMessage(id)` renders each finished message once; streaming text
 * re-renders only its own row, at most once per animation frame (the store batches).
 */
import type { ChatStore } from '@parlance/client';
import type { Message, Part } from '@parlance/protocol';
import { useCallback, useSyncExternalStore } from 'react';
import { useChatStore } from './context.ts';

/**
 * One message of the chat, re-rendering only when that message changes (streaming text included, at most once per frame).
 *
 * @example
 * function Row({ id }: { id: string }) {
 *   const message = useMessage(id);
 *   return <p>{message ? messageText(message) : null}</p>;
 * }
 */
export function useMessage(id: string, store?: ChatStore): Message | undefined {
  const s = useChatStore(store);
  const subscribe = useCallback((listener: () => void) => s.subscribeMessage(id, listener), [s, id]);
  const get = () => s.getMessage(id);
  return useSyncExternalStore(subscribe, get, get);
}

/**
 * One part of a message, re-rendering only when that part changes.
 *
 * @example
 * const part = useMessagePart(id, 0);
 * return part?.type === 'reasoning' ? <details><summary>Thinking</summary>{part.text}</details> : null;
 */
export function useMessagePart(id: string, index: number, store?: ChatStore): Part | undefined {
  const s = useChatStore(store);
  const subscribe = useCallback((listener: () => void) => s.subscribePart(id, index, listener), [s, id, index]);
  const get = () => s.getPart(id, index);
  return useSyncExternalStore(subscribe, get, get);
}

/**
 * The thread's message ids: a new array only when a message is added or removed.
 *
 * @example
 * function Messages() {
 *   const ids = useThreadMessageIds();
 *   return <>{ids.map((id) => <Row key={id} id={id} />)}</>;
 * }
 */
export function useThreadMessageIds(store?: ChatStore): string[] {
  const s = useChatStore(store);
  return useSyncExternalStore(s.subscribe, s.getMessageIds, s.getMessageIds);
}
