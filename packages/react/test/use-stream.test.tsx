import type { Event } from '@parlance/protocol';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { useStream } from '../src/use-stream.ts';
import { answer, createMockServer } from './helpers.ts';

beforeEach(() => vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => setTimeout(() => cb(0), 0)));
afterEach(() => vi.unstubAllGlobals());

it('folds an event source into response and text; stop keeps what arrived', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  async function* source(): AsyncIterable<Event> {
    yield* answer('m', ['Hi', ' you']).slice(1, 5);
    await gate;
    yield { type: 'text-delta', id: 't0', delta: ' never' };
  }
  const { result } = renderHook(() => useStream({ source }));
  act(() => void result.current.start());
  await waitFor(() => expect(result.current.text).toBe('Hi you'));
  expect(result.current.status).toBe('streaming');
  act(() => result.current.stop());
  release();
  await new Promise((r) => setTimeout(r, 5));
  expect(result.current.status).toBe('done');
  expect(result.current.text).toBe('Hi you');
});

it('reads an SSE endpoint (`api`) and reports the finished response', async () => {
  const mock = createMockServer({ onChat: (run) => (run.push(...answer('m1', ['All', ' good'])), run.finish()) });
  const { result } = renderHook(() => useStream({ api: '/api/chat', fetch: mock.fetch }));
  await act(() => result.current.start({ thread: { version: 1, id: 't', messages: [] }, clientRequestId: 'r' }));
  expect(result.current.status).toBe('done');
  expect(result.current.text).toBe('All good');
  expect(result.current.response).toMatchObject({ finishReason: 'stop', usage: { outputTokens: 2 }, message: { id: 'm1' } });
});

it('reports a typed error from the endpoint', async () => {
  const mock = createMockServer({ chatError: () => ({ status: 401, code: 'authentication', message: 'no key' }) });
  const { result } = renderHook(() => useStream({ api: '/api/chat', fetch: mock.fetch }));
  await act(() => result.current.start({}));
  expect(result.current).toMatchObject({ status: 'error', error: { code: 'authentication', message: 'no key', status: 401 } });
});
