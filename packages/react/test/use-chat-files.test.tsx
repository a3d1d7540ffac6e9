import type { FileRef, Thread } from '@parlance/protocol';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useChat } from '../src/use-chat.ts';
import { createMockServer } from './helpers.ts';

beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => setTimeout(() => cb(performance.now()), 0));
});
afterEach(() => vi.unstubAllGlobals());

describe('useChat send({ text, files })', () => {
  it('uploads the files, shows their progress in `uploads`, and sends references', async () => {
    const mock = createMockServer({ onChat: (run) => run.finish() });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
      if (String(input) === '/api/files') {
        await held;
        const size = (init.body as Blob).size;
        const file: FileRef = { id: 'file_1', mediaType: 'image/png', size, sha256: 'a'.repeat(64), signature: 'p2.k.m' };
        return Response.json({ file }, { status: 201 });
      }
      if (String(input) === '/api/models') return Response.json({ models: [] });
      return mock.fetch(input, init);
    };
    const { result } = renderHook(() => useChat({ api: '/api', fetch, threadId: 't', retryDelayMs: 0 }));
    const photo = new File([new Uint8Array(2048)], 'cat.png', { type: 'image/png' });
    let sent!: Promise<void>;
    act(() => void (sent = result.current.send({ text: 'What is this?', files: [photo] })));
    await waitFor(() => expect(result.current.uploads).toEqual([{ index: 0, name: 'cat.png', mediaType: 'image/png', size: 2048, loaded: 0 }]));
    release();
    await act(() => sent);
    expect(result.current.uploads).toBeUndefined();
    const thread = (mock.requests.find((r) => r.path === '/api/chat')!.body as { thread: Thread }).thread;
    expect(thread.messages[0]!.parts).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'file', mediaType: 'image/png', filename: 'cat.png', ref: { id: 'file_1', mediaType: 'image/png', size: 2048, sha256: 'a'.repeat(64), signature: 'p2.k.m' } },
    ]);
  });
});
