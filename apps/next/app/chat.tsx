'use client';
// app/chat.tsx: the chat in the browser. `api` is the route handler's `basePath`. The thread is
// kept in localStorage, so a reload shows it and resumes an answer that was streaming.
import { localStorageAdapter } from '@parlance/client';
import { useChat } from '@parlance/react';

const persist = localStorageAdapter();

export function Chat() {
  const { messages, status, pending, send, stop, approve, deny } = useChat({ api: '/api/chat', threadId: 'chat', persist });
  return (
    <form onSubmit={(e) => { e.preventDefault(); const q = e.currentTarget.elements.namedItem('q') as HTMLInputElement; void send(q.value); q.value = ''; }}>
      {messages.filter((m) => m.role !== 'tool').map((m) => (
        <p key={m.id} data-role={m.role}><b>{m.role}:</b> {m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}</p>
      ))}
      {pending.filter((p) => p.kind === 'approval').map((p) => (
        <p key={p.toolCallId}>
          Run {p.name} {JSON.stringify(p.input)}? <button type="button" onClick={() => approve(p.toolCallId)}>Approve</button>{' '}
          <button type="button" onClick={() => deny(p.toolCallId)}>Deny</button>
        </p>
      ))}
      <input name="q" aria-label="Message" disabled={status === 'loading'} />
      {status === 'submitted' || status === 'streaming' ? <button type="button" onClick={stop}>Stop</button> : <button type="submit">Send</button>}
    </form>
  );
}
