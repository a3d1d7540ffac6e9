/**
 * The open conversation: messages (one subscribed row each), the error of a failed
 * run, stop / regenerate, edit and the versions they keep, and the composer. `useChat` keeps the thread in
 * localStorage; a reload in the middle of an answer resumes its stream.
 */
import { messageText } from '@parlance/protocol';
import { ChatProvider, useChat, useThreadMessageIds } from '@parlance/react';
import { threadKeys } from '@parlance/react/query';
import { useQueryClient } from '@tanstack/react-query';
import { siblingsOf, type Message, type Siblings, type Thread } from '@parlance/protocol';
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { AttachButton, ComposerFiles, useComposerFiles } from './attachments.tsx';
import { useFollowLatest } from './follow-latest.ts';
import { MessageRow } from './message-view.tsx';
import { persist } from './threads.ts';
import { rememberThumbnails } from './thumbnails.ts';

/** For the last assistant message of each turn, the ids of that turn's assistant messages. */
function turnsOf(messages: readonly Message[]): Map<string, string[]> {
  const turns = new Map<string, string[]>();
  let turn: string[] = [];
  const close = () => {
    const last = turn.at(-1);
    if (last) turns.set(last, turn);
    turn = [];
  };
  for (const m of messages) {
    if (m.role === 'user') close();
    else if (m.role === 'assistant') turn.push(m.id);
  }
  close();
  return turns;
}

/** The messages of the shown path that have other versions (edited or regenerated), and where each stands. */
function versionsOf(thread: Thread): Map<string, Siblings> {
  const out = new Map<string, Siblings>();
  const { branches, messages } = thread;
  if (!branches) return out;
  messages.forEach((m, i) => {
    if (Object.hasOwn(branches, i === 0 ? '' : messages[i - 1]!.id)) out.set(m.id, siblingsOf(thread, m.id));
  });
  return out;
}

export function Chat({ threadId, model, options, onNewChat }: { threadId: string; model: string | undefined; options?: Record<string, unknown>; onNewChat: () => void }) {
  // `options`: the model settings (settings-panel.tsx), sent with each request when any is set.
  const chat = useChat({ api: '/api', threadId, persist, ...(model ? { model } : {}), ...(options && Object.keys(options).length ? { options } : {}) });
  const ids = useThreadMessageIds(chat.store);
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState('');
  const attach = useComposerFiles();
  const scroller = useRef<HTMLDivElement>(null);
  const busy = chat.status === 'submitted' || chat.status === 'streaming';
  const lastId = ids.at(-1);
  const awaitingApproval = chat.pending.some((p) => p.kind === 'approval');
  // One rule for every kind of pause (an approval, a tool's question, a client tool): while the run
  // waits for the reader, Regenerate is not offered; it would make a version that asks the same again.
  const canRegenerate =
    chat.status === 'ready' && chat.pending.length === 0 && chat.messages.some((m) => m.role === 'user') && chat.messages.at(-1)?.role !== 'user';

  // Follow the conversation, unless the reader scrolled up (then offer "Jump to latest").
  const { away, follow } = useFollowLatest(scroller, chat.store);

  // One usage footer per turn: under the last assistant message before the next user message.
  // Recomputed when messages are added, never per streamed delta (ids do not change then).
  // biome-ignore lint/correctness/useExhaustiveDependencies: ids are the signal of a change; the thread is read when one comes
  const turns = useMemo(() => turnsOf(chat.store.getSnapshot().thread.messages), [ids, chat.store]);
  // Likewise the `‹ 1/3 ›` arrows: they change when versions are made or switched, not per delta.
  // biome-ignore lint/correctness/useExhaustiveDependencies: ids and branches are the signals of a change; the thread is read when one comes
  const versions = useMemo(() => versionsOf(chat.store.getSnapshot().thread), [ids, chat.thread.branches, chat.store]);
  const canBranch = chat.status === 'ready' || chat.status === 'error';

  // Escape stops a streaming answer, wherever the focus is (as chat products do).
  useEffect(() => {
    if (!busy) return;
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented) void chat.stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [busy, chat.stop]);

  function submit(event?: FormEvent) {
    event?.preventDefault();
    const text = draft.trim();
    const files = attach.files;
    // While the run waits for an approval (or an answer), sending is refused: the draft stays in the box.
    if ((!text && files.length === 0) || chat.sendBlocked) return;
    setDraft('');
    attach.clear();
    // The reader sent something: show it and what comes back, wherever they had scrolled.
    follow();
    if (files.length === 0) void chat.send(text);
    else {
      // Thumbnails first (kept by hash in this browser), so the sent message shows them at once.
      void rememberThumbnails(files)
        .then(() => chat.send({ text, files }))
        .catch((error: Error) => attach.fail(error.message, files));
    }
    // The thread is saved as soon as it has a message: list it in the sidebar now, not when the answer ends.
    void chat.store.persisted().then(() => queryClient.invalidateQueries({ queryKey: threadKeys.all }));
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  }

  return (
    <ChatProvider store={chat.store}>
      <div className="messages" ref={scroller} data-testid="messages" aria-live="polite" aria-busy={busy}>
        {ids.length === 0 && chat.status !== 'loading' && (
          <div className="empty">
            <h2>Ask anything</h2>
            <p>
              With the demo model, try <code>weather in Paris</code>, <code>what time is it</code>, <code>long</code> or <code>error</code>.
            </p>
          </div>
        )}
        {ids.map((id) => (
          <MessageRow key={id} id={id} streaming={busy && id === lastId} turn={turns.get(id)} version={versions.get(id)} canBranch={canBranch} />
        ))}
        {chat.queue.map((m) => (
          <div className="row user queued" data-testid="queued-message" key={m.id}>
            <div className="bubble">{messageText(m)}</div>
            <div className="queued-note">Queued: sent when the answer ends</div>
          </div>
        ))}
        {canRegenerate && (
          <div className="message-actions">
            <button
              type="button"
              onClick={() => {
                follow();
                void chat.regenerate();
              }}
            >
              Regenerate
            </button>
          </div>
        )}
        {chat.status === 'submitted' && <div className="typing" role="status" title="Waiting for the model">●●●</div>}
        {chat.status === 'ready' && chat.haltReason === 'cancelled' && <div className="note" data-testid="stopped">Stopped. The partial answer is kept.</div>}
        {chat.deleted && (
          <div className="note" role="status" data-testid="deleted">
            This chat was deleted (here or in another tab); nothing more is saved.{' '}
            <button type="button" onClick={onNewChat}>
              New chat
            </button>
          </div>
        )}
        {chat.status === 'error' && chat.error && (
          <div className="error" role="alert" data-testid="error">
            <strong>The model could not answer.</strong> {chat.error.message}
            <button
              type="button"
              onClick={() => {
                follow();
                void chat.retry();
              }}
            >
              Retry
            </button>
          </div>
        )}
      </div>
      {chat.persistError?.code === 'storage' && (
        // Outside the message list, so it stays in view until a save succeeds again (the reducer clears it).
        <div className="error not-saved" role="alert" data-testid="not-saved">
          {chat.persistError.message}
        </div>
      )}
      {away && (
        <div className="jump-latest">
          <button type="button" onClick={follow}>
            Jump to latest
          </button>
        </div>
      )}
      <form className={attach.dragging ? 'composer dragging' : 'composer'} onSubmit={submit} {...attach.dropProps}>
        {chat.sendBlocked && !chat.deleted && (
          <div className="hint" role="status" data-testid="send-blocked">
            {awaitingApproval ? 'Approve or deny the tool call above to continue; then you can send your message.' : `${chat.sendBlocked.message}.`}
          </div>
        )}
        <ComposerFiles files={attach.files} uploads={chat.uploads} error={attach.error} onRemove={attach.remove} />
        <textarea
          onPaste={attach.onPaste}
          aria-label="Message"
          placeholder="Message the model (Enter to send, Shift+Enter for a new line)"
          value={draft}
          rows={2}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className="composer-actions">
          <AttachButton onFiles={attach.add} disabled={!!chat.sendBlocked} />
          {busy ? (
            <button type="button" className="stop" onClick={() => void chat.stop()}>
              Stop
            </button>
          ) : (
            <button type="submit" className="primary" disabled={(!draft.trim() && attach.files.length === 0) || chat.status === 'loading' || !!chat.sendBlocked}>
              Send
            </button>
          )}
        </div>
      </form>
    </ChatProvider>
  );
}
