/**
 * Our Files API uploads (providers/file-apis.ts) next to the official SDKs' own upload calls,
 * against one mock server: the same path, the same auth and beta/protocol headers, the same
 * multipart fields (OpenAI, Anthropic) or resumable commands (Gemini), the same bytes.
 */
import Anthropic, { toFile as anthropicFile } from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { toFile as openaiFile } from 'openai';
import type { FileRef } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createProviderFiles } from '../../src/files/provider-files.ts';
import { resolveFileRefs } from '../../src/files/resolve-files.ts';
import { anthropic } from '../../src/providers/builtin/anthropic.ts';
import { google } from '../../src/providers/builtin/google.ts';
import { openai } from '../../src/providers/builtin/openai.ts';
import type { RecordedRequest } from './server.ts';
import { sendJson, serverPerTest } from './server.ts';

const serve = serverPerTest();
const PDF = new TextEncoder().encode('%PDF-1.7 the same bytes');
const KEY = 'sk-sdk-compare';

async function ref(): Promise<FileRef> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', PDF as Uint8Array<ArrayBuffer>));
  return { id: 'f', mediaType: 'application/pdf', size: PDF.length, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''), signature: 's' };
}

/** Multipart fields as name -> [filename, content-type, body]. */
function fields(req: RecordedRequest): Record<string, [string | undefined, string | undefined, string]> {
  const boundary = /boundary=(.+)$/.exec(String(req.headers['content-type']))![1]!;
  const out: Record<string, [string | undefined, string | undefined, string]> = {};
  for (const section of req.raw.split(`--${boundary}`).slice(1, -1)) {
    const [head, ...rest] = section.split('\r\n\r\n');
    const name = /name="([^"]+)"/.exec(head!)![1]!;
    out[name] = [/filename="([^"]+)"/.exec(head!)?.[1], /content-type: ([^\r\n]+)/i.exec(head!)?.[1], rest.join('\r\n\r\n').replace(/\r\n$/, '')];
  }
  return out;
}

async function ours(provider: typeof openai, model: string, baseURL: string): Promise<void> {
  const m = provider.model(model, { baseURL, apiKey: KEY, retry: false });
  const source = { get: async () => PDF, providerFiles: createProviderFiles({ minBytes: 0 }) };
  await resolveFileRefs({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'file', mediaType: 'application/pdf', filename: 'report.pdf', ref: await ref() }] }] }, source, {
    dialect: m.dialect,
    name: model,
    provider: m.provider,
    uploads: m.files,
  });
}

describe('uploads match the official SDKs', () => {
  it('OpenAI (openai files.create, purpose user_data, expiring after 30 days)', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { id: 'file-1', object: 'file', bytes: PDF.length, created_at: 1, filename: 'report.pdf', purpose: 'user_data' }));
    await new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1` }).files.create({
      file: await openaiFile(PDF, 'report.pdf', { type: 'application/pdf' }),
      purpose: 'user_data',
      expires_after: { anchor: 'created_at', seconds: 30 * 24 * 3600 },
    });
    await ours(openai, 'gpt-4.1', `${server.url}/v1`);
    const [sdk, mine] = server.requests;
    expect([mine!.method, mine!.url, mine!.headers.authorization]).toEqual([sdk!.method, sdk!.url, sdk!.headers.authorization]);
    expect(fields(mine!)).toEqual(fields(sdk!));
  });

  it('Anthropic (beta.files.upload with the files beta)', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { id: 'file_1', type: 'file', filename: 'report.pdf', mime_type: 'application/pdf', size_bytes: PDF.length, created_at: '2026-01-01T00:00:00Z' }));
    await new Anthropic({ apiKey: KEY, baseURL: server.url }).beta.files.upload({ file: await anthropicFile(PDF, 'report.pdf', { type: 'application/pdf' }), betas: ['files-api-2025-04-14'] });
    await ours(anthropic, 'claude-sonnet-4-5', server.url);
    const [sdk, mine] = server.requests;
    // The SDK adds `?beta=true` to name the beta endpoint; the path is the same.
    expect(mine!.url).toBe(sdk!.url.replace('?beta=true', ''));
    // Auth and `anthropic-version` follow the provider's own settings (x-api-key, the pinned version), as for /v1/messages.
    expect(mine!.headers['anthropic-beta']).toBe(sdk!.headers['anthropic-beta']);
    expect(fields(mine!)).toEqual(fields(sdk!));
  });

  it('Gemini (@google/genai files.upload, resumable)', async () => {
    let n = 0;
    const server = await serve((req, res) => {
      if (req.headers['x-goog-upload-command'] === 'start') return sendJson(res, 200, {}, { 'x-goog-upload-url': `${server.url}/resumable/${++n}`, 'x-goog-upload-status': 'active' });
      sendJson(res, 200, { file: { name: `files/f${n}`, uri: `${server.url}/v1beta/files/f${n}`, mimeType: 'application/pdf', state: 'ACTIVE' } }, { 'x-goog-upload-status': 'final' });
    });
    const sdk = new GoogleGenAI({ apiKey: KEY, apiVersion: 'v1beta', httpOptions: { baseUrl: server.url } });
    await sdk.files.upload({ file: new Blob([PDF], { type: 'application/pdf' }), config: { mimeType: 'application/pdf', displayName: 'report.pdf' } });
    await ours(google, 'gemini-2.5-flash', server.url);
    const [sdkStart, sdkBytes, myStart, myBytes] = server.requests;
    expect(myStart!.url).toBe(sdkStart!.url);
    for (const header of ['x-goog-api-key', 'x-goog-upload-protocol', 'x-goog-upload-command', 'x-goog-upload-header-content-length', 'x-goog-upload-header-content-type']) {
      expect([header, myStart!.headers[header]]).toEqual([header, sdkStart!.headers[header]]);
    }
    expect(myStart!.body.file.display_name ?? myStart!.body.file.displayName).toBe(sdkStart!.body.file.displayName ?? sdkStart!.body.file.display_name);
    for (const header of ['x-goog-upload-command', 'x-goog-upload-offset']) expect([header, myBytes!.headers[header]]).toEqual([header, sdkBytes!.headers[header]]);
    expect(myBytes!.bytes).toEqual(sdkBytes!.bytes);
  });
});
