import { type Event, type FileRef, type LanguageModel, type Message, type ModelRequest, ParlanceError } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../engine.ts';
import type { FileSource } from './file-source.ts';
import { createFileCache, resolveFileRefs } from './resolve-files.ts';
import { withFileRefs } from './with-file-refs.ts';

const bytes = new TextEncoder().encode('%PDF-1.7 hello');
async function refOf(data: Uint8Array, mediaType: string, id = 'file_1'): Promise<FileRef> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
  const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  return { id, mediaType, size: data.length, sha256, signature: 'p2.k.m' };
}

function sourceOf(files: Record<string, Uint8Array>, url?: (ref: FileRef) => string): FileSource & { reads: number } {
  const source = {
    reads: 0,
    async get(ref: FileRef) {
      source.reads++;
      return files[ref.id];
    },
    ...(url ? { url: async (ref: FileRef) => url(ref) } : {}),
  };
  return source;
}

const userWith = (ref: FileRef): Message[] => [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is this?' }, { type: 'file', mediaType: ref.mediaType, filename: 'a.pdf', ref }] }];

describe('resolveFileRefs', () => {
  it.each([
    ['anthropic_messages', 'image/png', 'url'],
    ['anthropic_messages', 'application/pdf', 'url'],
    ['openai_responses', 'image/png', 'url'],
    ['openai_responses', 'application/pdf', 'url'],
    ['openai_completions', 'image/png', 'url'],
    ['openai_completions', 'application/pdf', 'data'],
    ['google_gemini', 'image/png', 'data'],
    ['google_gemini', 'application/pdf', 'data'],
    ['ollama_chat', 'image/png', 'data'],
  ])('%s gets a %s as %s when the store gives URLs', async (dialect, mediaType, kind) => {
    const ref = await refOf(bytes, mediaType);
    const source = sourceOf({ file_1: bytes }, (r) => `https://files.example/${r.id}?sig=1`);
    const { messages } = await resolveFileRefs({ messages: userWith(ref) }, source, { dialect, name: 'm' });
    const part = messages[0]!.parts[1]!;
    expect(part).toMatchObject({ type: 'file', mediaType, filename: 'a.pdf' });
    if (kind === 'url') expect(part).toMatchObject({ url: 'https://files.example/file_1?sig=1' });
    else expect(part).toMatchObject({ data: btoa('%PDF-1.7 hello') });
    expect('ref' in part).toBe(false);
  });

  it('sends the bytes inline when the store gives no URL', async () => {
    const ref = await refOf(bytes, 'image/png');
    const { messages } = await resolveFileRefs({ messages: userWith(ref) }, sourceOf({ file_1: bytes }), { dialect: 'anthropic_messages', name: 'm' });
    expect(messages[0]!.parts[1]).toMatchObject({ data: btoa('%PDF-1.7 hello') });
  });

  it('fails with a typed error before reading anything', async () => {
    const image = await refOf(bytes, 'image/png');
    const source = sourceOf({ file_1: bytes });
    const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (e: ParlanceError) => ({ code: e.code, status: e.status, path: e.path }));
    // A text-only model: refused before the store is read.
    expect(await failure(resolveFileRefs({ messages: userWith(image) }, source, { dialect: 'openai_completions', input: ['text'], name: 'deepseek:chat' }))).toEqual({
      code: 'invalid_request',
      status: 415,
      path: ['messages', 0, 'parts', 1],
    });
    expect(source.reads).toBe(0);
    // No file source configured.
    expect(await failure(resolveFileRefs({ messages: userWith(image) }, undefined, { dialect: 'openai_completions', name: 'm' }))).toMatchObject({ code: 'invalid_request' });
    // No longer stored.
    expect(await failure(resolveFileRefs({ messages: userWith({ ...image, id: 'gone' }) }, source, { dialect: 'google_gemini', name: 'm' }))).toMatchObject({ code: 'not_found', path: ['messages', 0, 'parts', 1] });
    // The store holds other bytes under the id.
    expect(await failure(resolveFileRefs({ messages: userWith(image) }, sourceOf({ file_1: new Uint8Array([1, 2, 3]) }), { dialect: 'google_gemini', name: 'm' }))).toMatchObject({ code: 'server_error' });
  });

  it('reads each file once per cache, bounded by count', async () => {
    const ref = await refOf(bytes, 'application/pdf');
    const source = sourceOf({ file_1: bytes });
    const cache = createFileCache(1);
    for (let i = 0; i < 3; i++) await resolveFileRefs({ messages: userWith(ref) }, source, { dialect: 'google_gemini', name: 'm' }, cache);
    expect(source.reads).toBe(1);
    const other = await refOf(bytes, 'application/pdf', 'file_2');
    await resolveFileRefs({ messages: userWith(other) }, sourceOf({ file_2: bytes }), { dialect: 'google_gemini', name: 'm' }, cache);
    // The first was dropped to keep one entry.
    await resolveFileRefs({ messages: userWith(ref) }, source, { dialect: 'google_gemini', name: 'm' }, cache);
    expect(source.reads).toBe(2);
  });
});

function capturing(): LanguageModel & { requests: Omit<ModelRequest, 'model'>[] } {
  const requests: Omit<ModelRequest, 'model'>[] = [];
  return {
    provider: 'mock',
    modelId: 'm',
    dialect: 'google_gemini',
    requests,
    async *stream(request): AsyncGenerator<Event> {
      requests.push(request);
      yield { type: 'message-start' };
      yield { type: 'finish', finishReason: 'stop', usage: {} };
    },
  };
}

describe('the engine with `files`', () => {
  it('gives the model the bytes of a referenced file', async () => {
    const ref = await refOf(bytes, 'application/pdf');
    const model = capturing();
    await createEngine({ model, files: sourceOf({ file_1: bytes }) }).chat({ messages: userWith(ref) });
    expect(model.requests[0]!.messages[0]!.parts[1]).toEqual({ type: 'file', mediaType: 'application/pdf', filename: 'a.pdf', data: btoa('%PDF-1.7 hello') });
  });

  it('keeps the model\'s own properties, so a spread copy (telemetry) still names it', () => {
    const { stream: _, ...copy } = { ...withFileRefs(capturing(), sourceOf({})) };
    expect(copy).toMatchObject({ provider: 'mock', modelId: 'm', dialect: 'google_gemini' });
  });

  it('ends the call with an error event, never a provider call, when a file cannot be resolved', async () => {
    const ref = await refOf(bytes, 'application/pdf', 'gone');
    const model = capturing();
    const events: Event[] = [];
    for await (const event of withFileRefs(model, sourceOf({})).stream({ messages: userWith(ref) })) events.push(event);
    expect(model.requests).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual(['message-start', 'error', 'finish']);
  });
});
