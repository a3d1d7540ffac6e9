/**
 * User-message file parts in every dialect, as the engine hands them over after resolving a stored
 * file (`FilePart.ref`): inline bytes or a URL. Each body a dialect accepts is validated against
 * its provider's published request schema; a file its provider cannot take by that route is a
 * typed `invalid_request` with the part's path (before any call); an unresolved reference is
 * refused by every dialect instead of being sent as an empty block.
 */
import type { FilePart, ModelRequest, Part } from '@parlance/protocol';
import { ParlanceError } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { getDialect } from '../src/registry.ts';
import type { DialectId } from '../src/types.ts';
import { msg, text } from './requests.ts';
import { GOOGLE_SCHEMA, OPENAI_SCHEMA, validateAgainst, validateAgainstDiscovery } from './schemas.ts';

const CHECKS: Record<DialectId, { model: string; check: (body: unknown) => string }> = {
  anthropic_messages: { model: 'claude-sonnet-4-5', check: (b) => validateAgainst('anthropic__lingua__openapi.yml', '/components/schemas/CreateMessageParams', b) },
  openai_completions: { model: 'gpt-4.1', check: (b) => validateAgainst(OPENAI_SCHEMA, '#/components/schemas/CreateChatCompletionRequest', b) },
  openai_responses: { model: 'gpt-4.1', check: (b) => validateAgainst(OPENAI_SCHEMA, '/components/schemas/CreateResponse', b) },
  google_gemini: { model: 'gemini-2.5-flash', check: (b) => validateAgainstDiscovery(GOOGLE_SCHEMA, 'GenerateContentRequest', b) },
  ollama_chat: { model: 'qwen2.5vl', check: (b) => validateAgainst('ollama__ollama__openapi.yaml', '/components/schemas/ChatRequest', b) },
};

const PNG = btoa('\x89PNG\r\n\x1a\n-bytes');
const PDF = btoa('%PDF-1.7 bytes');
const FILES: Record<string, FilePart> = {
  'image (data)': { type: 'file', mediaType: 'image/png', filename: 'cat.png', data: PNG },
  'image (url)': { type: 'file', mediaType: 'image/png', filename: 'cat.png', url: 'https://files.example/file_1?sig=1' },
  'pdf (data)': { type: 'file', mediaType: 'application/pdf', filename: 'report.pdf', data: PDF },
  'pdf (url)': { type: 'file', mediaType: 'application/pdf', filename: 'report.pdf', url: 'https://files.example/file_2?sig=1' },
  'text (data)': { type: 'file', mediaType: 'text/plain', filename: 'notes.txt', data: btoa('hello') },
  'audio (data)': { type: 'file', mediaType: 'audio/wav', filename: 'a.wav', data: btoa('RIFF....WAVE') },
};

/** What each dialect's provider takes, per file form (from each provider's docs, linked in the encoders). */
const TAKES: Record<DialectId, string[]> = {
  anthropic_messages: ['image (data)', 'image (url)', 'pdf (data)', 'pdf (url)', 'text (data)'],
  openai_completions: ['image (data)', 'image (url)', 'pdf (data)', 'text (data)', 'audio (data)'],
  openai_responses: ['image (data)', 'image (url)', 'pdf (data)', 'pdf (url)', 'text (data)', 'audio (data)'],
  google_gemini: ['image (data)', 'image (url)', 'pdf (data)', 'pdf (url)', 'text (data)', 'audio (data)'],
  ollama_chat: ['image (data)', 'text (data)'],
};

const request = (model: string, part: Part): ModelRequest => ({ model, messages: [msg('user', text('What is in this file?'), part)] });

function refusal(run: () => unknown): { code: string; path: unknown } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ParlanceError);
    return { code: (error as ParlanceError).code, path: (error as ParlanceError).path };
  }
}

describe.each(Object.keys(CHECKS) as DialectId[])('%s user file parts', (id) => {
  const { model, check } = CHECKS[id];
  const dialect = getDialect(id);

  it.each(Object.keys(FILES))('%s: a schema-valid body, or a typed refusal at the part', (name) => {
    const run = () => dialect.encodeRequest(request(model, FILES[name]!));
    if (TAKES[id].includes(name)) {
      const body = run();
      expect(check(body)).toBe('');
      // The bytes or the URL reach the body.
      const wire = JSON.stringify(body);
      const file = FILES[name]!;
      expect(wire.includes(file.data ?? file.url!) || (file.mediaType === 'text/plain' && wire.includes('hello'))).toBe(true);
    } else {
      expect(refusal(run)).toEqual({ code: 'invalid_request', path: ['messages', 0, 'parts', 1] });
    }
  });

  // Uploaded to the provider's Files API by the engine (engine/src/files/provider-files.ts): sent by id.
  const UPLOADED: Partial<Record<DialectId, Record<string, unknown>>> = {
    anthropic_messages: { image: { type: 'image', source: { type: 'file', file_id: 'file_9' } }, pdf: { type: 'document', source: { type: 'file', file_id: 'file_9' }, title: 'report.pdf' } },
    openai_responses: { image: { type: 'input_image', file_id: 'file_9', detail: 'auto' }, pdf: { type: 'input_file', file_id: 'file_9' } },
    openai_completions: { pdf: { type: 'file', file: { file_id: 'file_9' } } },
    google_gemini: {
      image: { fileData: { mimeType: 'image/png', fileUri: 'https://files.example/v1beta/files/file_9' } },
      pdf: { fileData: { mimeType: 'application/pdf', fileUri: 'https://files.example/v1beta/files/file_9' } },
    },
  };
  const uploaded = Object.entries(UPLOADED[id] ?? {});
  it.runIf(uploaded.length > 0).each(uploaded)('%s uploaded to the provider: sent by its file id, schema-valid', (kind, expected) => {
    const mediaType = kind === 'image' ? 'image/png' : 'application/pdf';
    const part: FilePart = { type: 'file', mediaType, filename: 'report.pdf', url: 'https://files.example/v1beta/files/file_9', providerState: { [id]: { fileId: 'file_9' } } };
    const body = dialect.encodeRequest(request(model, part));
    const content = JSON.stringify(body);
    expect(content).toContain(JSON.stringify(expected));
    // Anthropic's file sources are in its beta schema, named by the beta header the dialect adds.
    if (id === 'anthropic_messages') {
      expect(validateAgainst('anthropic__lingua__openapi.yml', '/components/schemas/BetaCreateMessageParams', body)).toBe('');
      expect(dialect.requestHeaders?.(body as Record<string, unknown>)).toEqual({ 'anthropic-beta': 'files-api-2025-04-14' });
    } else expect(check(body)).toBe('');
  });

  it('refuses an unresolved reference with the part path', () => {
    const ref = { id: 'file_1', mediaType: 'image/png', size: 10, sha256: 'a'.repeat(64), signature: 'p2.k.m' };
    expect(refusal(() => dialect.encodeRequest(request(model, { type: 'file', mediaType: 'image/png', ref })))).toEqual({ code: 'invalid_request', path: ['messages', 0, 'parts', 1] });
  });
});
