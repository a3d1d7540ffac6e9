import { act, render, screen } from '@testing-library/react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { forbidImpureReads } from '../../client/test/forbid-impure.ts';
import { useChat } from '../src/use-chat.ts';
import { answer, createMockServer } from './helpers.ts';

let restore: (() => void) | undefined;
afterEach(() => (restore?.(), (restore = undefined)));

function Chat(props: { fetch: typeof fetch }) {
  const { messages, status, send } = useChat({ api: '/api', fetch: props.fetch, retryDelayMs: 0 });
  return (
    <div>
      <p data-testid="status">{status}</p>
      {messages.map((m) => (
        <p key={m.id}>{m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}</p>
      ))}
      <button type="button" onClick={() => void send('hi')}>
        Send
      </button>
    </div>
  );
}

// Next.js 16 (cacheComponents) fails `next build` when a client component reads randomness or the clock while prerendering.
describe('useChat reads no randomness or time while rendering', () => {
  it('prerenders on the server', () => {
    const mock = createMockServer();
    restore = forbidImpureReads();
    expect(renderToString(<Chat fetch={mock.fetch} />)).toContain('ready');
  });

  it('renders in the browser, and the first send mints the thread id', async () => {
    const mock = createMockServer({ onChat: (run) => (run.push(...answer('a1', ['Hello'])), run.finish()) });
    restore = forbidImpureReads();
    render(<Chat fetch={mock.fetch} />);
    expect(screen.getByTestId('status').textContent).toBe('ready');
    restore();
    restore = undefined;
    await act(async () => screen.getByText('Send').click());
    expect(await screen.findByText('Hello')).toBeTruthy();
    const body = mock.requests.find((r) => r.path === '/api/chat')!.body as { thread: { id: string } };
    expect(body.thread.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
