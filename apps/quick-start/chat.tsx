import { useChat } from '@parlance/react';

export function Chat() {
  const { messages, status, send, stop } = useChat({ api: '/api', model: 'anthropic:claude-sonnet-4-5' });
  return (
    <form onSubmit={(e) => { e.preventDefault(); const q = e.currentTarget.elements.namedItem('q') as HTMLInputElement; send(q.value); q.value = ''; }}>
      {messages.map((m) => <p key={m.id}><b>{m.role}:</b> {m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}</p>)}
      <input name="q" aria-label="Message" />
      {status === 'streaming' ? <button type="button" onClick={stop}>Stop</button> : <button type="submit">Send</button>}
    </form>
  );
}
