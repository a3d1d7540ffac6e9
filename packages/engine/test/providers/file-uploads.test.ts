/**
 * Provider Files APIs (engine/src/files/provider-files.ts, providers/file-apis.ts) against mock
 * provider servers on 127.0.0.1: a stored PDF is uploaded once and named by its id in every later
 * turn; an id the provider no longer knows is uploaded again once and the turn succeeds; upload
 * failures end the call with a typed error before any model call; small files stay inline.
 */
import type { ServerResponse } from 'node:http';
import type { DialectId } from '@parlance/dialects';
import type { FileRef, Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.ts';
import type { FileSource } from '../../src/files/file-source.ts';
import { createProviderFiles, type ProviderFiles } from '../../src/files/provider-files.ts';
import { withFileRefs } from '../../src/files/with-file-refs.ts';
import { anthropic } from '../../src/providers/builtin/anthropic.ts';
import { google } from '../../src/providers/builtin/google.ts';
import { openai } from '../../src/providers/builtin/openai.ts';
import type { Provider } from '../../src/providers/types.ts';
import { fixture, replay, sendJson, serverPerTest, type RecordedRequest, type TestServer } from './server.ts';

const serve = serverPerTest();
const PDF = new TextEncoder().encode(`%PDF-1.7 ${'x'.repeat(2000)}`);

async function refOf(bytes: Uint8Array, mediaType = 'application/pdf', id = 'file_pdf'): Promise<FileRef> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return { id, mediaType, size: bytes.length, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''), signature: 'p2.k.m' };
}

function sourceOf(files: Record<string, Uint8Array>, providerFiles: ProviderFiles): FileSource & { reads: number } {
  const source = {
    reads: 0,
    providerFiles,
    async get(ref: FileRef) {
      source.reads++;
      return files[ref.id];
    },
  };
  return source;
}

interface Case {
  provider: Provider;
  model: string;
  dialect: DialectId;
  /** The base URL given to the provider (OpenAI's holds /v1). */
  base: (url: string) => string;
  isUpload: (req: RecordedRequest) => boolean;
  isModelCall: (req: RecordedRequest) => boolean;
  /** Answers an upload: the id `n` (counting from 1). */
  answerUpload: (req: RecordedRequest, res: ServerResponse, n: number, server: () => TestServer) => void;
  stream: string;
  /** How the model call names the file `file-n`. */
  names: (n: number) => string;
}

const CASES: Record<string, Case> = {
  'OpenAI Responses': {
    provider: openai,
    model: 'gpt-4.1',
    dialect: 'openai_responses',
    base: (url) => `${url}/v1`,
    isUpload: (req) => req.url === '/v1/files',
    isModelCall: (req) => req.url === '/v1/responses',
    answerUpload: (_req, res, n) => sendJson(res, 200, { id: `file-${n}`, object: 'file', bytes: PDF.length, created_at: 1, filename: 'report.pdf', purpose: 'user_data' }),
    stream: 'pydantic-ai__test_deepseek_responses_text_stream_.i0.sse',
    names: (n) => JSON.stringify({ type: 'input_file', file_id: `file-${n}` }),
  },
  'OpenAI Chat Completions': {
    provider: openai.withSettings({ dialect: 'openai_completions' }),
    model: 'gpt-4.1',
    dialect: 'openai_completions',
    base: (url) => `${url}/v1`,
    isUpload: (req) => req.url === '/v1/files',
    isModelCall: (req) => req.url === '/v1/chat/completions',
    answerUpload: (_req, res, n) => sendJson(res, 200, { id: `file-${n}`, object: 'file', bytes: PDF.length, created_at: 1, filename: 'report.pdf', purpose: 'user_data' }),
    stream: 'omni__groq_text.sse',
    names: (n) => JSON.stringify({ type: 'file', file: { file_id: `file-${n}` } }),
  },
  Anthropic: {
    provider: anthropic,
    model: 'claude-sonnet-4-5',
    dialect: 'anthropic_messages',
    base: (url) => url,
    isUpload: (req) => req.url === '/v1/files',
    isModelCall: (req) => req.url === '/v1/messages',
    answerUpload: (_req, res, n) => sendJson(res, 200, { id: `file-${n}`, type: 'file', filename: 'report.pdf', mime_type: 'application/pdf', size_bytes: PDF.length, created_at: '2026-11-26T00:00:00Z' }),
    stream: 'omni__anthropic_text.sse',
    names: (n) => JSON.stringify({ type: 'file', file_id: `file-${n}` }),
  },
  Gemini: {
    provider: google,
    model: 'gemini-2.5-flash',
    dialect: 'google_gemini',
    base: (url) => url,
    isUpload: (req) => req.url.startsWith('/upload/v1beta/files'),
    isModelCall: (req) => req.url.includes(':streamGenerateContent'),
    answerUpload: (req, res, n, server) => {
      // The resumable protocol: the start answers where the bytes go, the finalize the file.
      if (req.headers['x-goog-upload-command'] === 'start') {
        sendJson(res, 200, {}, { 'x-goog-upload-url': `${server().url}/upload/v1beta/files?upload_id=u${n}&upload_protocol=resumable` });
        return;
      }
      sendJson(res, 200, {
        file: { name: `files/file-${n}`, uri: `https://generativelanguage.googleapis.com/v1beta/files/file-${n}`, mimeType: 'application/pdf', state: 'ACTIVE', expirationTime: new Date(Date.now() + 48 * 3600_000).toISOString() },
      });
    },
    stream: 'vercel-ai__google__google-text.chunks.txt',
    names: (n) => JSON.stringify({ fileData: { mimeType: 'application/pdf', fileUri: `https://generativelanguage.googleapis.com/v1beta/files/file-${n}` } }),
  },
};

/** Gemini's upload is two requests: the finalize carries the bytes. */
const uploadsOf = (c: Case, server: TestServer) => server.requests.filter((r) => c.isUpload(r) && r.headers['x-goog-upload-command'] !== 'start');

async function providerServer(c: Case, refuse: (req: RecordedRequest, modelCalls: number) => boolean = () => false): Promise<TestServer> {
  let uploads = 0;
  let modelCalls = 0;
  const server: TestServer = await serve((req, res) => {
    if (c.isUpload(req)) {
      if (req.headers['x-goog-upload-command'] !== 'start') uploads++;
      c.answerUpload(req, res, uploads + (req.headers['x-goog-upload-command'] === 'start' ? 1 : 0), () => server);
      return;
    }
    if (c.isModelCall(req)) {
      modelCalls++;
      if (refuse(req, modelCalls)) return sendJson(res, 404, { error: { type: 'not_found_error', message: 'File not found', code: 404, status: 'NOT_FOUND' } });
      return replay(res, fixture(c.dialect, c.stream), { pieces: 2 });
    }
    sendJson(res, 500, { error: { message: `unexpected ${req.method} ${req.url}` } });
  });
  return server;
}

const settingsFor = (c: Case, server: TestServer, key = 'sk-test-key-1') => ({ baseURL: c.base(server.url), apiKey: key, retry: false as const });
const firstTurn = (ref: FileRef): Message[] => [{ id: 'u0', role: 'user', parts: [{ type: 'text', text: 'Summarize this' }, { type: 'file', mediaType: ref.mediaType, filename: 'report.pdf', ref }] }];

describe.each(Object.keys(CASES))('%s Files API', (name) => {
  const c = CASES[name]!;

  it('a 50-turn thread with one PDF uploads it once and names it by id in every turn', async () => {
    const server = await providerServer(c);
    const ref = await refOf(PDF);
    const source = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: 0 }));
    let messages = firstTurn(ref);
    for (let turn = 0; turn < 50; turn++) {
      // One engine per turn, as the server runs each turn: only the ProviderFiles record is shared.
      const result = await createEngine({ model: c.provider.model(c.model, settingsFor(c, server)), files: source }).chat({ messages });
      expect(result.error).toBeUndefined();
      messages = [...result.thread.messages, { id: `u${turn + 1}`, role: 'user', parts: [{ type: 'text', text: `Turn ${turn + 1}` }] }];
    }
    expect(uploadsOf(c, server)).toHaveLength(1);
    expect(source.reads).toBe(1);
    const calls = server.requests.filter(c.isModelCall);
    expect(calls).toHaveLength(50);
    for (const call of calls) {
      expect(call.raw).toContain(c.names(1));
      // The bytes never travel again.
      expect(call.raw).not.toContain(btoa('%PDF-1.7'));
    }
    if (c.dialect === 'anthropic_messages') expect(calls[0]!.headers['anthropic-beta']).toBe('files-api-2025-04-14');
  });

  it('an id the provider no longer knows (404) is uploaded again once, and the turn succeeds', async () => {
    // The second model call refuses file-1 (deleted or expired early).
    const server = await providerServer(c, (req) => req.raw.includes(c.names(1)) && server.requests.filter(c.isModelCall).length > 1);
    const ref = await refOf(PDF);
    const source = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: 0 }));
    const model = () => c.provider.model(c.model, settingsFor(c, server));
    await createEngine({ model: model(), files: source }).chat({ messages: firstTurn(ref) });
    const result = await createEngine({ model: model(), files: source }).chat({ messages: firstTurn(ref) });
    expect(result.error).toBeUndefined();
    expect(result.thread.messages.at(-1)?.role).toBe('assistant');
    expect(uploadsOf(c, server)).toHaveLength(2);
    const calls = server.requests.filter(c.isModelCall);
    expect(calls.map((call) => call.raw.includes(c.names(2)))).toEqual([false, false, true]);
  });

  it('a provider that keeps refusing gets one re-upload, then the error is the turn\'s', async () => {
    const server = await providerServer(c, () => true);
    const ref = await refOf(PDF);
    const source = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: 0 }));
    const result = await createEngine({ model: c.provider.model(c.model, settingsFor(c, server)), files: source }).chat({ messages: firstTurn(ref) });
    expect(result.error?.code).toBe('not_found');
    expect(uploadsOf(c, server)).toHaveLength(2);
    expect(server.requests.filter(c.isModelCall)).toHaveLength(2);
  });

  it.each([
    [401, { error: { type: 'authentication_error', message: 'invalid x-api-key' } }, 'authentication'],
    [413, { error: { type: 'request_too_large', message: 'too large' } }, 'invalid_request'],
    [500, { error: { type: 'api_error', message: 'boom' } }, 'server_error'],
    [200, 'not json', 'invalid_response'],
    [200, { object: 'file' }, 'invalid_response'],
  ] as const)('an upload answered %s is a typed error before any model call', async (status, body, code) => {
    const server = await serve((_req, res) => {
      if (status === 200 && typeof body === 'string') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
        return;
      }
      sendJson(res, status, body);
    });
    const ref = await refOf(PDF);
    const source = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: 0 }));
    const events = [];
    for await (const event of withFileRefs(c.provider.model(c.model, settingsFor(c, server)), source).stream({ messages: firstTurn(ref) })) events.push(event);
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ type: 'error', code });
    expect((error as { message: string }).message).toContain('Uploading the file "file_pdf"');
    expect(server.requests.filter(c.isModelCall)).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it('keeps small files inline, and another key\'s account uploads its own copy', async () => {
    const server = await providerServer(c);
    const ref = await refOf(PDF);
    const small = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: PDF.length + 1 }));
    await createEngine({ model: c.provider.model(c.model, settingsFor(c, server)), files: small }).chat({ messages: firstTurn(ref) });
    expect(uploadsOf(c, server)).toHaveLength(0);
    expect(server.requests.find(c.isModelCall)!.raw).toContain(btoa(new TextDecoder().decode(PDF)).slice(0, 40));

    const shared = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: 0 }));
    for (const key of ['sk-tenant-a', 'sk-tenant-b', 'sk-tenant-a']) {
      await createEngine({ model: c.provider.model(c.model, settingsFor(c, server, key)), files: shared }).chat({ messages: firstTurn(ref) });
    }
    expect(uploadsOf(c, server)).toHaveLength(2);
  });
});

describe('upload request shapes', () => {
  it('OpenAI: multipart file and purpose user_data (vision for images), bearer key', async () => {
    const c = CASES['OpenAI Responses']!;
    const server = await providerServer(c);
    const pdf = await refOf(PDF);
    const png = new TextEncoder().encode(`\x89PNG${'p'.repeat(100)}`);
    const image = await refOf(png, 'image/png', 'file_png');
    const source = sourceOf({ file_pdf: PDF, file_png: png }, createProviderFiles({ minBytes: 0 }));
    const messages: Message[] = [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Both' }, { type: 'file', mediaType: 'application/pdf', filename: 'report.pdf', ref: pdf }, { type: 'file', mediaType: 'image/png', ref: image }] }];
    await createEngine({ model: c.provider.model(c.model, settingsFor(c, server)), files: source }).chat({ messages });
    const uploads = uploadsOf(c, server);
    expect(uploads.map((u) => u.headers.authorization)).toEqual(['Bearer sk-test-key-1', 'Bearer sk-test-key-1']);
    const purposes = uploads.map((u) => /name="purpose"\r\n\r\n(\w+)/.exec(u.raw)?.[1]).sort();
    expect(purposes).toEqual(['user_data', 'vision']);
    // Expiring after 30 days, so uploads do not pile up in the account.
    for (const u of uploads) expect(u.raw).toMatch(/name="expires_after\[seconds\]"\r\n\r\n2592000\r\n/);
    expect(uploads.some((u) => u.raw.includes('filename="report.pdf"') && u.raw.includes('Content-Type: application/pdf'))).toBe(true);
    const call = server.requests.find(c.isModelCall)!;
    expect(call.raw).toMatch(/"type":"input_image","file_id":"file-\d","detail":"auto"/);
    expect(call.raw).toMatch(/"type":"input_file","file_id":"file-\d"/);
  });

  it('Anthropic: the files beta header and the pinned version', async () => {
    const c = CASES.Anthropic!;
    const server = await providerServer(c);
    const source = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: 0 }));
    await createEngine({ model: c.provider.model(c.model, settingsFor(c, server)), files: source }).chat({ messages: firstTurn(await refOf(PDF)) });
    const [upload] = uploadsOf(c, server);
    expect(upload!.headers).toMatchObject({ 'anthropic-beta': 'files-api-2025-04-14', 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-test-key-1' });
    expect(upload!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  });

  it('Gemini: resumable start then upload+finalize; the key goes only to the API\'s own origin', async () => {
    const c = CASES.Gemini!;
    // The bytes go to another origin (as Google's upload URLs may): it must not see the key.
    const elsewhere = await serve((_req, res) =>
      sendJson(res, 200, { file: { name: 'files/f1', uri: 'https://generativelanguage.googleapis.com/v1beta/files/f1', state: 'ACTIVE', expirationTime: '2099-01-01T00:00:00Z' } }),
    );
    const server = await serve((req, res) => {
      if (c.isUpload(req)) return sendJson(res, 200, {}, { 'x-goog-upload-url': `${elsewhere.url}/upload?upload_id=1` });
      return replay(res, fixture(c.dialect, c.stream), { pieces: 2 });
    });
    const source = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: 0 }));
    const result = await createEngine({ model: c.provider.model(c.model, settingsFor(c, server)), files: source }).chat({ messages: firstTurn(await refOf(PDF)) });
    expect(result.error).toBeUndefined();
    const [start] = server.requests.filter(c.isUpload);
    expect(start!.headers).toMatchObject({
      'x-goog-api-key': 'sk-test-key-1',
      'x-goog-upload-protocol': 'resumable',
      'x-goog-upload-command': 'start',
      'x-goog-upload-header-content-length': String(PDF.length),
      'x-goog-upload-header-content-type': 'application/pdf',
    });
    expect(start!.body).toEqual({ file: { display_name: 'report.pdf' } });
    const [bytes] = elsewhere.requests;
    expect(bytes!.headers).toMatchObject({ 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' });
    expect(bytes!.headers['x-goog-api-key']).toBeUndefined();
    expect(new Uint8Array(bytes!.bytes)).toEqual(PDF);
    expect(server.requests.find(c.isModelCall)!.raw).toContain('"fileUri":"https://generativelanguage.googleapis.com/v1beta/files/f1"');
  });

  it('Gemini: an id past its 48 h expiry is uploaded again before use, without a failed call', async () => {
    const c = CASES.Gemini!;
    const server = await providerServer(c);
    let now = Date.now();
    const source = sourceOf({ file_pdf: PDF }, createProviderFiles({ minBytes: 0, now: () => now }));
    const ref = await refOf(PDF);
    const chat = () => createEngine({ model: c.provider.model(c.model, settingsFor(c, server)), files: source }).chat({ messages: firstTurn(ref) });
    await chat();
    now += 47 * 3600_000 + 60_000;
    await chat();
    expect(uploadsOf(c, server)).toHaveLength(2);
    expect(server.requests.filter(c.isModelCall).map((call) => call.raw.includes(c.names(2)))).toEqual([false, true]);
  });
});
