/**
 * `POST /files` and the references it answers: stored and signed for the caller; a reference from
 * another principal, unsigned or edited, is refused by `POST /chat` like a forged tool call; the
 * engine reads the bytes back at encode time; bad uploads are typed 4xx.
 */
import type { Event, FileRef, FileUploadResponseBody, LanguageModel, ModelRequest } from '@parlance/protocol';
import { anthropic, createProviderFiles } from '@parlance/engine';
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { chatRequest, readAll, textRunner } from '../../test/helpers.ts';
import { engineRunner } from '../engine-runner.ts';
import { createMemoryBlobStore } from '../files/memory-blob-store.ts';
import { createParlanceApp } from '../handler.ts';
import type { ParlanceServerOptions } from '../server-options.ts';

const SECRET = 'files-test-secret-that-is-long-enough-0123456789';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

function appWith(overrides: Partial<ParlanceServerOptions> = {}) {
  const store = createMemoryBlobStore();
  const { runner, calls } = textRunner(['ok']);
  const app = createParlanceApp({
    models: [{ id: 'mock:echo', provider: 'mock' }],
    run: runner,
    secret: SECRET,
    env: {},
    authorize: (request) => (request.headers.get('x-user') ? { id: request.headers.get('x-user')! } : undefined),
    files: { store, maxFileBytes: 64 * 1024 },
    onError: () => {},
    ...overrides,
  });
  return { app, store, calls };
}

const upload = (app: { request: (path: string, init: RequestInit) => Response | Promise<Response> }, user: string, bytes: Uint8Array, type = 'image/png', headers: Record<string, string> = {}) =>
  app.request('/files', { method: 'POST', body: bytes as Uint8Array<ArrayBuffer>, headers: { 'content-type': 'application/octet-stream', 'x-parlance-file-type': type, 'x-user': user, ...headers } });

const threadWith = (ref: FileRef, mediaType = ref.mediaType) => ({
  version: 1,
  id: 'th_files',
  messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is this?' }, { type: 'file', mediaType, filename: 'cat.png', ref }] }],
});

const postChat = (app: ReturnType<typeof appWith>['app'], user: string, thread: unknown) => app.request('/chat', chatRequest({ thread, clientRequestId: crypto.randomUUID() }, { 'x-user': user }));

async function sha256(bytes: Uint8Array) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

describe('POST /files', () => {
  it('stores the bytes and answers a signed reference (201)', async () => {
    const { app, store } = appWith();
    const response = await upload(app, 'carol', PNG);
    expect(response.status).toBe(201);
    const { file } = (await response.json()) as FileUploadResponseBody;
    expect(file).toMatchObject({ mediaType: 'image/png', size: PNG.length, sha256: await sha256(PNG) });
    expect(file.id).toMatch(/^file_[0-9a-f]{32}$/);
    expect(file.signature).toMatch(/^p3\./);
    expect(await store.get(file.id)).toEqual(PNG);
  });

  it.each<[string, (app: ReturnType<typeof appWith>['app']) => Response | Promise<Response>, number]>([
    ['no media type header', (app) => app.request('/files', { method: 'POST', body: PNG, headers: { 'content-type': 'application/octet-stream', 'x-user': 'c' } }), 400],
    ['a media type that is not one', (app) => upload(app, 'c', PNG, 'image/png; x=1'), 400],
    ['a header with a newline-free but bogus type', (app) => upload(app, 'c', PNG, '../../etc'), 400],
    ['a type the server does not take', (app) => upload(app, 'c', PNG, 'application/x-msdownload'), 415],
    ['an empty file', (app) => upload(app, 'c', new Uint8Array()), 400],
    ['a file over maxFileBytes', (app) => upload(app, 'c', new Uint8Array(64 * 1024 + 1)), 413],
    ['a file over maxFileBytes, streamed without a length', (app) => app.request('/files', { method: 'POST', body: new Blob([new Uint8Array(64 * 1024 + 1)]).stream(), duplex: 'half', headers: { 'content-type': 'application/octet-stream', 'x-parlance-file-type': 'image/png', 'x-user': 'c' } } as RequestInit), 413],
    ['JSON instead of bytes', (app) => app.request('/files', chatRequest({ data: 'AA==' }, { 'x-user': 'c' })), 415],
    ['a multipart form (no preflight cross-site)', (app) => { const form = new FormData(); form.set('f', new Blob([PNG])); return app.request('/files', { method: 'POST', body: form, headers: { 'x-user': 'c' } }); }, 415],
    ['no credentials', (app) => upload(app, '', PNG), 401],
    ['a foreign Origin', (app) => upload(app, 'c', PNG, 'image/png', { origin: 'https://evil.example' }), 403],
  ])('refuses %s with a typed %s', async (_name, send, status) => {
    const { app, store } = appWith();
    const response = await send(app);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(status === 401 ? 'authentication' : status === 403 ? 'permission' : 'invalid_request');
    expect(await store.get('file_x')).toBeUndefined();
  });

  it('is not served without a file store', async () => {
    const { app } = appWith({ files: undefined });
    expect((await upload(app, 'carol', PNG)).status).toBe(404);
  });

  it('is a configuration error without a signing key (outside development)', async () => {
    const { app } = appWith({ secret: undefined });
    const response = await upload(app, 'carol', PNG);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/stores files/);
  });

  it('answers 503 store_unavailable when the store fails', async () => {
    const { app } = appWith({ files: { store: { ...createMemoryBlobStore(), put: async () => { throw new Error('disk full'); } } } });
    const response = await upload(app, 'carol', PNG);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
  });
});

describe('a reference in POST /chat', () => {
  it('two principals: Carol uses her file; Mallory, holding Carol\'s whole thread, is refused', async () => {
    const { app, calls } = appWith();
    const { file } = (await (await upload(app, 'carol', PNG)).json()) as FileUploadResponseBody;
    const carol = await postChat(app, 'carol', threadWith(file));
    expect(carol.status).toBe(200);
    await readAll(carol);
    expect(calls).toHaveLength(1);
    expect(await calls[0]!.files!.get(file)).toEqual(PNG);

    const mallory = await postChat(app, 'mallory', threadWith(file));
    expect(mallory.status).toBe(403);
    const body = (await mallory.json()) as { error: { code: string; message: string; issues: { path: unknown[] }[] } };
    expect(body.error.code).toBe('permission');
    expect(body.error.issues[0]!.path).toEqual(['thread', 'messages', 0, 'parts', 1]);
    expect(calls).toHaveLength(1);
  });

  it.each<[string, (ref: FileRef) => ReturnType<typeof threadWith>]>([
    ['unsigned', (ref) => threadWith({ ...ref, signature: '' })],
    ['with an edited id (another stored file)', (ref) => threadWith({ ...ref, id: 'file_00000000000000000000000000000000' })],
    ['with an edited size', (ref) => threadWith({ ...ref, size: ref.size + 1 })],
    ['with an edited hash', (ref) => threadWith({ ...ref, sha256: '0'.repeat(64) })],
    ['with an edited media type', (ref) => threadWith({ ...ref, mediaType: 'application/pdf' })],
    ['sent as another media type', (ref) => threadWith(ref, 'application/pdf')],
    ['with a forged signature', (ref) => threadWith({ ...ref, signature: `${ref.signature.slice(0, -4)}AAAA` })],
  ])('refuses a reference %s with 403 before running', async (_name, edit) => {
    const { app, calls } = appWith();
    const { file } = (await (await upload(app, 'carol', PNG)).json()) as FileUploadResponseBody;
    const response = await postChat(app, 'carol', edit(file));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('permission');
    expect(calls).toHaveLength(0);
  });

  it('engineRunner: the model gets the file\'s bytes inline, never the reference', async () => {
    const requests: Omit<ModelRequest, 'model'>[] = [];
    const model: LanguageModel = {
      provider: 'mock',
      modelId: 'echo',
      dialect: 'google_gemini',
      async *stream(request): AsyncGenerator<Event> {
        requests.push(request);
        yield { type: 'message-start' };
        yield { type: 'finish', finishReason: 'stop', usage: {} };
      },
    };
    const { app } = appWith({ run: engineRunner({ engine: { resolveModel: () => model } }) });
    const { file } = (await (await upload(app, 'carol', PNG)).json()) as FileUploadResponseBody;
    await readAll(await postChat(app, 'carol', threadWith(file)));
    expect(requests[0]!.messages[0]!.parts[1]).toEqual({ type: 'file', mediaType: 'image/png', filename: 'cat.png', data: btoa(String.fromCharCode(...PNG)) });
  });

  it('files.providerFiles: the file goes to the provider\'s Files API once, and every turn names it by id', async () => {
    const messages = mockProviderServer({ dialect: 'anthropic_messages', script: () => ({ text: 'A cat.' }) });
    const uploads: Request[] = [];
    // One provider origin: its Files API and its Messages API.
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname === '/v1/files') {
        uploads.push(request);
        return Response.json({ id: `file_${uploads.length}`, type: 'file', filename: 'cat.png', mime_type: 'image/png', size_bytes: PNG.length, created_at: '2026-11-26T00:00:00Z' });
      }
      return messages(request);
    };
    const model = anthropic.model('claude-sonnet-4-5', { baseURL: 'https://anthropic.test', apiKey: 'sk-ant-test', fetch, retry: false });
    const { app } = appWith({
      run: engineRunner({ engine: { resolveModel: () => model } }),
      files: { store: createMemoryBlobStore(), providerFiles: createProviderFiles({ minBytes: 0 }) },
    });
    const { file } = (await (await upload(app, 'carol', PNG)).json()) as FileUploadResponseBody;
    for (let turn = 0; turn < 3; turn++) await readAll(await postChat(app, 'carol', threadWith(file)));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.headers.get('anthropic-beta')).toBe('files-api-2025-04-14');
    expect(messages.requests).toHaveLength(3);
    for (const request of messages.requests) expect(JSON.stringify(request.body)).toContain('{"type":"image","source":{"type":"file","file_id":"file_1"}}');
  });
});
