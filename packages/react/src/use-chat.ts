/**
 * useChat: glue over ChatStore (TanStack Query's useBaseQuery pattern). The store is
 * created once per thread id; option changes are pushed into it after each render,
 * and every action reads them when it runs, so callbacks never see stale options.
 */
import { ChatStore, type ChatOptions, type ChatState } from '@parlance/client';
import type { Message } from '@parlance/protocol';
import { useEffect, useState, useSyncExternalStore } from 'react';

/**
 * What `useChat` takes: the `ChatStore` options (`api`, `model`, `threadId`, `persist`, `tools`, callbacks).
 *
 * @example
 * const options: UseChatOptions = { api: '/api/chat', model: 'openai:gpt-5-mini', persist: localStorageAdapter() };
 */
export type UseChatOptions = ChatOptions;

/**
 * What `useChat` returns: the chat's state (`status`, `pending`, `error`, `thread`…), its
 * `messages`, the actions (each returns a promise that settles when the run it starts has ended),
 * and the `store` itself (for `ChatProvider` / `useMessage`).
 *
 * @example
 * function Composer({ chat }: { chat: UseChatResult }) {
 *   return chat.status === 'streaming' ? <button onClick={chat.stop}>Stop</button> : <button onClick={() => chat.send('Hi')}>Send</button>;
 * }
 */
export interface UseChatResult extends ChatState {
  /** The thread's messages (`thread.messages`). */
  messages: Message[];
  send: ChatStore['send'];
  stop: ChatStore['stop'];
  regenerate: ChatStore['regenerate'];
  /** Sends a new version of a user message; the old one and what followed stay a sibling version. */
  edit: ChatStore['edit'];
  /** Shows another version of a message (the `‹ 1/3 ›` arrows); throws `busy` while a response streams. */
  switchBranch: ChatStore['switchBranch'];
  /** Which of its versions a shown message is: `{ index, count }`. */
  siblings: ChatStore['siblings'];
  retry: ChatStore['retry'];
  submitToolResult: ChatStore['submitToolResult'];
  approve: ChatStore['approve'];
  deny: ChatStore['deny'];
  answer: ChatStore['answer'];
  setThread: ChatStore['setThread'];
  store: ChatStore;
}

/**
 * A chat with a Parlance server: messages stream in as they are generated, with stop, regenerate,
 * edit, versions of edited and regenerated messages (`siblings`, `switchBranch`), retry, and answers to what a paused run waits for (approvals, client tools, questions). Reads no
 * randomness or time while rendering, so it server-renders and prerenders (Next.js `cacheComponents`).
 * `api` is where the Parlance routes are mounted (a handler's `basePath`).
 *
 * What the returned state means for a UI:
 * - `pending`: what a paused run waits for (approvals, questions, client tool results), derived
 *   from the thread itself, so it survives a reload. Answer with `approve` / `deny` / `answer` /
 *   `submitToolResult`; once every input has one, the run continues.
 * - `sendBlocked`: set while the run is paused (`pending` is not empty). `send()` is then refused:
 *   it rejects with a `ParlanceError` of code `'run_paused'` and nothing is sent, queued or saved.
 *   Disable sending while it is set, keep the user's draft, and show `sendBlocked.message` (or your
 *   own hint); to move on, deny or answer first.
 * - `queue`: messages sent while an answer streams. They are shown at once (render them after the
 *   thread, marked as queued) and sent when the answer ends (`sendMode: 'interrupt'` stops it first).
 * - A failed turn stays in the thread: its assistant message carries `error` and nothing else. The
 *   next `send()` builds on the thread (the failed turn is not sent to the model again); `retry()`
 *   asks again for the failed message instead.
 *
 * @example
 * 'use client';
 * import { useChat } from '@parlance/react';
 *
 * export function Chat() {
 *   const { messages, status, send, stop } = useChat({ api: '/api/chat' });
 *   return (
 *     <form onSubmit={(e) => { e.preventDefault(); const q = e.currentTarget.elements.namedItem('q') as HTMLInputElement; void send(q.value); q.value = ''; }}>
 *       {messages.map((m) => <p key={m.id}>{m.role}: {m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}</p>)}
 *       <input name="q" aria-label="Message" />
 *       {status === 'streaming' ? <button type="button" onClick={stop}>Stop</button> : <button type="submit">Send</button>}
 *     </form>
 *   );
 * }
 *
 * @example Keeping the draft while the run waits for an approval
 * ```tsx
 * const chat = useChat({ api: '/api', threadId, persist: localStorageAdapter() });
 * <textarea value={draft} onChange={(e) => setDraft(e.target.value)} />
 * {chat.sendBlocked && <p role="status">{chat.sendBlocked.message}</p>}
 * <button disabled={!!chat.sendBlocked} onClick={() => (void chat.send(draft), setDraft(''))}>Send</button>
 * ```
 */
export function useChat(options: UseChatOptions): UseChatResult {
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
    edit: store.edit,
    switchBranch: store.switchBranch,
    siblings: store.siblings,
    retry: store.retry,
    submitToolResult: store.submitToolResult,
    approve: store.approve,
    deny: store.deny,
    answer: store.answer,
    setThread: store.setThread,
    store,
  };
}
