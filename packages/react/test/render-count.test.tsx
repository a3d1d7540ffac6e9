import { createThread, type Message } from '@parlance/protocol';
import { act, render, screen } from '@testing-library/react';
import { memo } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { ChatProvider } from '../src/context.ts';
import { useChat } from '../src/use-chat.ts';
import { useMessage, useThreadMessageIds } from '../src/use-message.ts';
import { createMockServer, manualFrames, textOf } from './helpers.ts';

afterEach(() => vi.unstubAllGlobals());

const renders = new Map<string, number>();
const Row = memo(function Row({ id }: { id: string }) {
  renders.set(id, (renders.get(id) ?? 0) + 1);
  const message = useMessage(id);
  return <li data-testid={id}>{textOf(message)}</li>;
});
function List() {
  const ids = useThreadMessageIds();
  return (
    <ul>
      {ids.map((id) => (
        <Row key={id} id={id} />
      ))}
    </ul>
  );
}
let chat!: ReturnType<typeof useChat>;
function App({ options }: { options: Parameters<typeof useChat>[0] }) {
  chat = useChat(options);
  return (
    <ChatProvider store={chat.store}>
      <List />
    </ChatProvider>
  );
}

it('200 finished messages render once while 1,000 deltas stream; the streaming one at most once per frame', async () => {
  const frames = manualFrames();
  vi.stubGlobal('requestAnimationFrame', frames.raf);
  const history: Message[] = Array.from({ length: 200 }, (_, i) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: `message ${i}` }] }));
  const mock = createMockServer({ onChat: (run) => run.push({ type: 'message-start', messageId: 'live' }, { type: 'text-start', id: 't' }) });
  render(<App options={{ api: '/api', fetch: mock.fetch, initialThread: createThread('t', history) }} />);
  expect(renders.get('m0')).toBe(1);

  await act(async () => {
    void chat.send('go');
    await vi.waitFor(() => expect(mock.runs[0]?.log.length).toBe(2));
  });
  const user = chat.messages[200]!.id;
  const framesBefore = frames.frames;
  const liveRendersBefore = () => renders.get('live') ?? 0;
  let liveAtStart = -1;
  for (let i = 0; i < 1000; i++) {
    mock.runs[0]!.push({ type: 'text-delta', id: 't', delta: i % 10 === 9 ? 'x ' : 'x' });
    if (i % 50 === 49) {
      // Let the client read what was sent, then let a frame pass.
      await act(async () => {
        await new Promise((r) => setTimeout(r, 0));
        frames.frame();
      });
      if (liveAtStart < 0) liveAtStart = liveRendersBefore();
    }
  }
  await act(async () => {
    mock.runs[0]!.finish();
    await new Promise((r) => setTimeout(r, 0));
    frames.frame();
  });
  const framesUsed = frames.frames - framesBefore;
  const live = renders.get('live') ?? 0;
  console.log(`frames: ${framesUsed}, streaming message renders: ${live}, finished message renders: ${renders.get('m0')}`);
  expect(screen.getByTestId('live').textContent).toBe(`${'x'.repeat(10)} `.repeat(100));
  for (let i = 0; i < 200; i++) expect(renders.get(`m${i}`)).toBe(1);
  expect(renders.get(user)).toBe(1);
  // One render per frame, plus the final (unbatched) chat-finish publication.
  expect(live).toBeLessThanOrEqual(framesUsed + 1);
  expect(live).toBeGreaterThan(1);
});
