/**
 * `send({ text, files })`: files checked against the model and the limits before anything is
 * sent, uploaded once each with progress, and held by the thread as references, so later turns
 * post kilobytes, not the photos again. With no file store on the server, small files go inline.
 */
import { type FilePart, type FileRef, ParlanceError, type Thread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import type { UploadProgress } from '../src/attachments.ts';
import { ChatStore, type ChatOptions } from '../src/chat-store.ts';
import { answer, createMockServer } from './mock-server.ts';

interface Upload {
  type: string | null;
  size: number;
}

/** The mock server plus `POST /api/files` (a reference per upload, or 404 without a store) and a model list. */
function setup(options: Partial<ChatOptions> = {}, server: { files?: boolean; input?: string[] } = {}) {
  const mock = createMockServer({ onChat: (run) => (run.push(...answer(`a${mock.runs.length}`, ['ok'])), run.finish()) });
  const uploads: Upload[] = [];
  const chatBodies: number[] = [];
  const hits = { files: 0 };
  let n = 0;
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const path = new URL(String(input), 'http://mock.test').pathname;
    const headers = (init.headers ?? {}) as Record<string, string>;
    if (path === '/api/files' && init.method === 'POST') {
      hits.files++;
      if (server.files === false) return Response.json({ error: { code: 'not_found', message: 'No such route' } }, { status: 404 });
      const size = (init.body as Blob).size;
      uploads.push({ type: headers['x-parlance-file-type'] ?? null, size });
      const file: FileRef = { id: `file_${uploads.length}`, mediaType: headers['x-parlance-file-type']!, size, sha256: 'a'.repeat(64), signature: `p2.key.${'s'.repeat(43)}` };
      return Response.json({ file }, { status: 201 });
    }
    if (path === '/api/models') return Response.json({ models: [{ id: 'm1', provider: 'p', capabilities: { input: server.input ?? ['text', 'image'] } }] });
    if (path === '/api/chat') chatBodies.push(new TextEncoder().encode(String(init.body)).length);
    return mock.fetch(input, init);
  };
  const store = new ChatStore({ api: '/api', fetch, retryDelayMs: 0, threadId: 't', model: 'm1', generateId: () => `id${++n}`, ...options });
  store.schedule = (flush) => queueMicrotask(flush);
  store.connect();
  return { mock, store, uploads, chatBodies, hits };
}

const image = (bytes: number, name = 'photo.jpg') => new File([new Uint8Array(bytes).fill(7)], name, { type: 'image/jpeg' });
const fileParts = (thread: Thread) => thread.messages.flatMap((m) => m.parts.filter((p): p is FilePart => p.type === 'file'));

async function refusal(promise: Promise<unknown>) {
  return promise.then(
    () => undefined,
    (e: ParlanceError) => ({ code: e.code, status: e.status, path: e.path, message: e.message }),
  );
}

describe('send({ text, files })', () => {
  it('a thread with ten 500 KB images posts bodies under 20 KB, on the turn that attaches them and every turn after', async () => {
    const { store, uploads, chatBodies, mock } = setup();
    await store.send({ text: 'What are these?', files: Array.from({ length: 10 }, (_, i) => image(500 * 1024, `p${i}.jpg`)) });
    await store.send('And the third one?');
    await store.send('Thanks');
    expect(uploads).toHaveLength(10);
    expect(uploads.every((u) => u.size === 500 * 1024 && u.type === 'image/jpeg')).toBe(true);
    expect(chatBodies).toHaveLength(3);
    for (const bytes of chatBodies) expect(bytes).toBeLessThan(20 * 1024);
    const sent = mock.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as { thread: Thread };
    expect(fileParts(sent.thread)).toHaveLength(10);
    expect(fileParts(sent.thread).every((p) => p.ref && p.data === undefined && p.filename?.startsWith('p'))).toBe(true);
  });

  it('takes a File, a Blob, a FileList-like, URLs, and text-less messages', async () => {
    const { store, mock } = setup();
    const list = { 0: image(10, 'a.jpg'), 1: new Blob(['%PDF-1.7'], { type: 'application/pdf' }), length: 2 };
    await store.send({ files: list });
    await store.send({ text: 'and', files: ['https://example.com/cat.png', new URL('https://example.com/doc.pdf'), { url: 'https://example.com/x', mediaType: 'image/webp' }] });
    const bodies = mock.requests.filter((r) => r.path === '/api/chat').map((r) => (r.body as { thread: Thread }).thread);
    expect(bodies[0]!.messages[0]!.parts.map((p) => (p.type === 'file' ? [p.mediaType, p.ref ? 'ref' : 'url'] : p.type))).toEqual([
      ['image/jpeg', 'ref'],
      ['application/pdf', 'ref'],
    ]);
    expect(bodies[1]!.messages[2]!.parts).toEqual([
      { type: 'text', text: 'and' },
      { type: 'file', mediaType: 'image/png', filename: 'cat.png', url: 'https://example.com/cat.png' },
      { type: 'file', mediaType: 'application/pdf', filename: 'doc.pdf', url: 'https://example.com/doc.pdf' },
      { type: 'file', mediaType: 'image/webp', filename: 'x', url: 'https://example.com/x' },
    ]);
  });

  it('reports per-file progress while uploading, and clears it after', async () => {
    const { store } = setup();
    const seen: UploadProgress[][] = [];
    store.subscribe(() => {
      const uploads = store.getSnapshot().uploads;
      if (uploads) seen.push(uploads);
    });
    await store.send({ files: [image(1000, 'a.jpg'), image(3000, 'b.jpg')] });
    expect(seen[0]).toEqual([
      { index: 0, name: 'a.jpg', mediaType: 'image/jpeg', size: 1000, loaded: 0 },
      { index: 1, name: 'b.jpg', mediaType: 'image/jpeg', size: 3000, loaded: 0 },
    ]);
    expect(seen.at(-1)!.map((u) => u.loaded)).toEqual([1000, 3000]);
    expect(store.getSnapshot().uploads).toBeUndefined();
  });

  it.each<[string, Partial<ChatOptions>, { input?: string[] }, () => unknown, { status: number; path: unknown[] }]>([
    ['an image for a text-only model (from GET /models)', {}, { input: ['text'] }, () => [image(10)], { status: 415, path: ['files', 0] }],
    ['a PDF for a text-only model', {}, { input: ['text'] }, () => ['https://example.com/a.pdf'], { status: 415, path: ['files', 0] }],
    ['an image the options say the model cannot read', { modelInput: ['text'] }, {}, () => [image(10)], { status: 415, path: ['files', 0] }],
    ['a file over maxFileBytes', { maxFileBytes: 100 }, {}, () => [image(10), image(101)], { status: 413, path: ['files', 1] }],
    ['a file with no type or known extension', {}, {}, () => [new Blob(['x'])], { status: 415, path: ['files', 0] }],
    ['an empty file', {}, {}, () => [image(0)], { status: 400, path: ['files', 0] }],
    ['a URL that is not http(s)', {}, {}, () => ['javascript:alert(1)'], { status: 400, path: ['files', 0] }],
    ['a URL of unknown type', {}, {}, () => ['https://example.com/thing'], { status: 415, path: ['files', 0] }],
  ])('refuses %s with a typed error before uploading or sending anything', async (_name, options, server, files, expected) => {
    const { store, uploads, chatBodies } = setup(options, server);
    expect(await refusal(store.send({ text: 'look', files: files() as never }))).toMatchObject({ code: 'invalid_request', ...expected });
    expect(uploads).toHaveLength(0);
    expect(chatBodies).toHaveLength(0);
    expect(store.getSnapshot().thread.messages).toHaveLength(0);
  });

  it('with no file store on the server (404), sends small files inline and refuses larger ones', async () => {
    const { store, mock, hits } = setup({ maxInlineFileBytes: 1000 }, { files: false });
    await store.send({ text: 'small', files: [image(600), image(500), image(400)] });
    const thread = (mock.requests.filter((r) => r.path === '/api/chat')[0]!.body as { thread: Thread }).thread;
    expect(fileParts(thread).map((p) => p.data?.length)).toEqual([800, 668, 536]);
    expect(fileParts(thread)[0]).toMatchObject({ mediaType: 'image/jpeg', data: btoa(String.fromCharCode(...new Uint8Array(600).fill(7))) });
    expect(await refusal(store.send({ files: [image(1001)] }))).toMatchObject({ code: 'invalid_request', status: 413, path: ['files', 0] });
    // Learned from the first upload alone (the others never tried), and not tried again.
    expect(hits.files).toBe(1);
  });
});

describe('edit of a message with files', () => {
  const sentParts = (mock: ReturnType<typeof setup>['mock']) => {
    const body = mock.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as { thread: Thread };
    return body.thread.messages.at(-1)!.parts.map((p) => (p.type === 'text' ? p.text : p.type === 'file' ? `${p.filename}:${p.ref?.id}` : p.type));
  };

  it('a new text keeps the message\'s files, without uploading them again', async () => {
    const { store, mock, uploads } = setup();
    await store.send({ text: 'What is this?', files: [image(1000, 'cat.jpg'), new File(['%PDF-1.7'], 'doc.pdf', { type: 'application/pdf' })] });
    const id = store.getSnapshot().thread.messages[0]!.id;
    await store.edit(id, 'What are these two?');
    expect(sentParts(mock)).toEqual(['What are these two?', 'cat.jpg:file_1', 'doc.pdf:file_2']);
    expect(uploads).toHaveLength(2);
    // The old version stays as a sibling, with its files.
    expect(store.siblings(store.getSnapshot().thread.messages[0]!.id)).toEqual({ index: 1, count: 2 });
  });

  it.each([
    ['adds new files after the kept ones', { files: [image(10, 'dog.jpg')] }, ['What is this?', 'cat.jpg:file_1', 'dog.jpg:file_2']],
    ['replaces the files (keepFiles: false)', { text: 'And this?', files: [image(10, 'dog.jpg')], keepFiles: false }, ['And this?', 'dog.jpg:file_2']],
    ['drops the files', { text: 'Never mind the photo', keepFiles: false }, ['Never mind the photo']],
    ['keeps the text when only files change', { files: [image(10, 'dog.jpg')], keepFiles: false }, ['What is this?', 'dog.jpg:file_2']],
  ] as const)('%s', async (_name, input, expected) => {
    const { store, mock } = setup();
    await store.send({ text: 'What is this?', files: [image(1000, 'cat.jpg')] });
    await store.edit(store.getSnapshot().thread.messages[0]!.id, { ...input, files: 'files' in input ? [...input.files] : undefined });
    expect(sentParts(mock)).toEqual(expected);
  });

  it('Part[] is the whole new message, and a refused new file sends nothing', async () => {
    const { store, mock, uploads } = setup({ maxFileBytes: 1500 });
    await store.send({ text: 'What is this?', files: [image(1000, 'cat.jpg')] });
    const id = store.getSnapshot().thread.messages[0]!.id;
    const runs = mock.runs.length;
    expect(await refusal(store.edit(id, { files: [image(10, 'ok.jpg'), image(2000, 'big.jpg')] }))).toMatchObject({ code: 'invalid_request', status: 413, path: ['files', 1] });
    expect(mock.runs.length).toBe(runs);
    expect(uploads).toHaveLength(1);
    expect(store.getSnapshot().thread.messages.map((m) => m.id)).toHaveLength(2);
    await store.edit(id, [{ type: 'text', text: 'Only text now' }]);
    expect(sentParts(mock)).toEqual(['Only text now']);
  });
});
