import { localStorageAdapter } from '@parlance/client';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useChat, type UseChatOptions } from '../src/use-chat.ts';
import { answer, createMockServer, pausedTurn, textOf } from './helpers.ts';

beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => setTimeout(() => cb(performance.now()), 0));
});
afterEach(() => vi.unstubAllGlobals());

type Server = ReturnType<typeof createMockServer>;
function renderChat(mock: Server, options: Partial<UseChatOptions> = {}) {
  let n = 0;
  const base: UseChatOptions = { api: '/api', fetch: mock.fetch, threadId: 't', retryDelayMs: 0, generateId: () => `u${++n}`, ...options };
  return renderHook((props: Partial<UseChatOptions>) => useChat({ ...base, ...props }), { initialProps: {} });
}
const bodies = (mock: Server) => mock.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as Record<string, any>);

describe('useChat', () => {
  it('send streams the answer into messages, with status along the way', async () => {
    const mock = createMockServer({ onChat: (run) => run.push(...answer('a1', ['Hello', ' there'])) });
    const { result } = renderChat(mock);
    expect(result.current.status).toBe('ready');
    act(() => void result.current.send('hi'));
    await waitFor(() => expect(textOf(result.current.messages[1])).toBe('Hello there'));
    expect(result.current.status).toBe('streaming');
    await act(async () => mock.runs[0]!.finish());
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(result.current.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('reads options when an action runs, not when the hook was created (no stale closures)', async () => {
    const finished: string[] = [];
    const mock = createMockServer({ onChat: (run) => run.finish() });
    const { result, rerender } = renderChat(mock, { model: 'first', onFinish: () => finished.push('old') });
    rerender({ model: 'second', onFinish: () => finished.push('new') });
    await act(() => result.current.send('hi'));
    expect(bodies(mock)[0]!.model).toBe('second');
    expect(finished).toEqual(['new']);
  });

  it('stop cancels the run on the server and keeps the partial answer', async () => {
    const mock = createMockServer({ onChat: (run) => run.push(...answer('a1', ['part']).slice(0, 4)) });
    const { result } = renderChat(mock);
    act(() => void result.current.send('hi'));
    await waitFor(() => expect(textOf(result.current.messages[1])).toBe('part'));
    await act(() => result.current.stop());
    expect(mock.runs[0]!.cancelled).toBe(true);
    expect(result.current).toMatchObject({ status: 'ready', haltReason: 'cancelled' });
    expect(textOf(result.current.messages[1])).toBe('part');
  });

  it('regenerate sends the thread without the last answer and asks again', async () => {
    const mock = createMockServer({ onChat: (run) => (run.push(...answer(`a-${run.id}`, [run.id])), run.finish()) });
    const { result } = renderChat(mock);
    await act(() => result.current.send('hi'));
    await act(() => result.current.regenerate());
    expect(bodies(mock)[1]!.thread.messages.map((m: { id: string }) => m.id)).toEqual(['u1']);
    expect(result.current.messages.map((m) => m.id)).toEqual(['u1', 'a-run_2']);
  });

  it('edit and regenerate keep the old versions; switchBranch flips between them and re-renders', async () => {
    const mock = createMockServer({ onChat: (run) => (run.push(...answer(`a-${run.id}`, [run.id])), run.finish()) });
    const { result } = renderChat(mock);
    await act(() => result.current.send('hi'));
    await act(() => result.current.regenerate());
    await act(() => result.current.regenerate());
    expect(result.current.messages.map((m) => m.id)).toEqual(['u1', 'a-run_3']);
    expect(result.current.siblings('a-run_3')).toEqual({ index: 2, count: 3 });
    act(() => result.current.switchBranch('a-run_3', 0));
    expect(result.current.messages.map((m) => m.id)).toEqual(['u1', 'a-run_1']);
    expect(result.current.siblings('a-run_1')).toEqual({ index: 0, count: 3 });
    await act(() => result.current.edit('u1', 'hello'));
    const edited = result.current.messages[0]!;
    expect(textOf(edited)).toBe('hello');
    expect(result.current.siblings(edited.id)).toEqual({ index: 1, count: 2 });
    expect(bodies(mock)[3]!.thread.messages.map((m: { id: string }) => m.id)).toEqual([edited.id]);
    act(() => result.current.switchBranch(edited.id, 0));
    expect(result.current.messages.map((m) => m.id)).toEqual(['u1', 'a-run_1']);
    expect(result.current.siblings('a-run_1')).toEqual({ index: 0, count: 3 });
  });

  it('switchBranch while a response streams throws a typed busy error and changes nothing', async () => {
    const mock = createMockServer({ onChat: (run) => (run.id === 'run_1' ? (run.push(...answer('a1', ['x'])), run.finish()) : run.push(...answer('a2', ['y']).slice(0, 4))) });
    const { result } = renderChat(mock);
    await act(() => result.current.send('hi'));
    act(() => void result.current.regenerate());
    await waitFor(() => expect(result.current.status).toBe('streaming'));
    expect(() => result.current.switchBranch('a2', 0)).toThrowError(expect.objectContaining({ code: 'busy' }));
    expect(result.current.messages.map((m) => m.id)).toEqual(['u1', 'a2']);
    await act(async () => mock.runs[1]!.finish());
    await waitFor(() => expect(result.current.status).toBe('ready'));
    act(() => result.current.switchBranch('a2', 0));
    expect(result.current.messages.map((m) => m.id)).toEqual(['u1', 'a1']);
  });

  it('retry sends again after an error; the error is typed', async () => {
    let fail = true;
    const onError = vi.fn();
    const mock = createMockServer({ chatError: () => (fail ? { status: 503, code: 'overloaded', message: 'busy' } : undefined), onChat: (run) => run.finish() });
    const { result } = renderChat(mock, { onError });
    await act(() => result.current.send('hi'));
    expect(result.current.error).toMatchObject({ code: 'overloaded', retryable: true });
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ code: 'overloaded' }));
    fail = false;
    await act(() => result.current.retry());
    expect(result.current.status).toBe('ready');
    expect(result.current.error).toBeUndefined();
  });

  it('setThread replaces the thread', async () => {
    const mock = createMockServer();
    const { result } = renderChat(mock);
    act(() => result.current.setThread({ version: 1, id: 't', messages: [{ id: 'x', role: 'user', parts: [{ type: 'text', text: 'loaded' }] }] }));
    expect(textOf(result.current.messages[0])).toBe('loaded');
  });

  it('runs client tools from `tools` (the latest ones) and sends results back automatically', async () => {
    const mock = createMockServer({
      onChat: (run) => {
        if (run.body.resume) return run.push(...answer('a2', ['done'])), run.finish();
        run.push(...pausedTurn('a1', [{ kind: 'client-tool', toolCallId: 'c1', name: 'now' }]));
        run.finish('client-tool-calls');
      },
    });
    const { result, rerender } = renderChat(mock, { tools: { now: () => 'stale' } });
    rerender({ tools: { now: async () => 'fresh' } });
    await act(() => result.current.send('time?'));
    await waitFor(() => expect(result.current.haltReason).toBe('completed'));
    expect(bodies(mock)[1]!.resume.toolResults).toEqual([{ toolCallId: 'c1', output: 'fresh' }]);
  });

  it('submitToolResult, approve, deny and answer continue a paused run once all are given', async () => {
    const mock = createMockServer({
      onChat: (run) => {
        if (run.body.resume) return run.finish();
        run.push(
          ...pausedTurn('a1', [
            { kind: 'approval', toolCallId: 'c1', name: 'rm' },
            { kind: 'approval', toolCallId: 'c2', name: 'mv' },
            { kind: 'ask-user', toolCallId: 'c3', question: 'Which?' },
            { kind: 'client-tool', toolCallId: 'c0', name: 'pick' },
          ]),
        );
        run.finish('approval');
      },
    });
    const { result } = renderChat(mock);
    await act(() => result.current.send('go'));
    expect(result.current.pending.map((p) => `${p.kind}:${p.toolCallId}`)).toEqual(['approval:c1', 'approval:c2', 'ask-user:c3', 'client-tool:c0']);
    await act(async () => {
      void result.current.approve('c1');
      void result.current.deny('c2', 'no');
      void result.current.answer('c3', 'the red one');
    });
    expect(mock.runs).toHaveLength(1);
    await act(() => result.current.submitToolResult('c0', { color: 'red' }));
    await waitFor(() => expect(mock.runs).toHaveLength(2));
    expect(bodies(mock)[1]!.resume).toEqual({
      toolResults: [{ toolCallId: 'c0', output: { color: 'red' } }],
      approvals: [
        { toolCallId: 'c1', approved: true },
        { toolCallId: 'c2', approved: false, reason: 'no' },
      ],
      answers: [{ toolCallId: 'c3', answer: 'the red one' }],
    });
  });

  it('a page reload mid-stream resumes the run with no text doubled or missing; stop works on it', async () => {
    localStorage.clear();
    const deltas = Array.from({ length: 40 }, (_, i) => `w${i} `);
    const events = answer('a1', deltas);
    const mock = createMockServer({ chunkBytes: 7, onChat: (run) => run.push(...events.slice(0, 15)) });
    const persist = localStorageAdapter();
    const page1 = renderChat(mock, { persist });
    await waitFor(() => expect(page1.result.current.status).toBe('ready'));
    act(() => void page1.result.current.send('write a lot'));
    await waitFor(() => expect(textOf(page1.result.current.messages[1])).toBe(deltas.slice(0, 12).join('')));
    await act(() => page1.result.current.store.persisted());
    page1.unmount(); // reload: the page goes away while the server keeps streaming
    const run = mock.runs[0]!;
    run.push(...events.slice(15, 25));

    const page2 = renderChat(mock, { persist });
    await waitFor(() => expect(textOf(page2.result.current.messages[1])).toBe(deltas.slice(0, 22).join('')));
    expect(page2.result.current.status).toBe('streaming');
    await act(() => page2.result.current.stop());
    expect(run.cancelled).toBe(true);
    expect(page2.result.current.haltReason).toBe('cancelled');
    expect(textOf(page2.result.current.messages[1])).toBe(deltas.slice(0, 22).join(''));
    page2.unmount();
  });

  it('returns sendBlocked while the run is paused, and send() then rejects with run_paused', async () => {
    const mock = createMockServer({
      onChat: (run) => {
        if (run.body.resume) return run.push(...answer('a2', ['ok'])), run.finish();
        run.push(...pausedTurn('a1', [{ kind: 'approval', toolCallId: 'c1', name: 'rm' }]));
        run.finish('approval');
      },
    });
    const { result } = renderChat(mock);
    await act(() => result.current.send('delete'));
    expect(result.current.sendBlocked).toMatchObject({ code: 'run_paused' });
    await expect(result.current.send('other')).rejects.toMatchObject({ code: 'run_paused' });
    await act(() => result.current.approve('c1'));
    expect(result.current.sendBlocked).toBeUndefined();
  });
});
