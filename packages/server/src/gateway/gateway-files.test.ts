/**
 * Image and document blocks in every caller format of the gateway, sent with the official SDKs
 * (openai Chat Completions and Responses, @anthropic-ai/sdk, @google/genai, ollama) over HTTP on
 * 127.0.0.1: each block reaches the run as a protocol file part (bytes or URL) and is answered; the
 * model here describes what it received (media type and SHA-256 of the bytes, or the URL), so the
 * answer proves the bytes arrived intact. Blocks the gateway cannot turn into a file (a provider file
 * id, which names a file in the caller's own provider account; malformed base64) are a typed 400
 * in the caller's own error format, and no run starts.
 */
import { createHash } from 'node:crypto';
import { serve, type ServerType } from '@hono/node-server';
import type { Event, LanguageModel, ModelRequest } from '@parlance/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sdkTurn, type Sdk } from '../../../testing/test/sdk-clients.ts';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';

vi.setConfig({ testTimeout: 30_000 });

const KEY = 'gw-files-test-key';
const PNG_BYTES = Buffer.from('\x89PNG\r\n\x1a\n-a-tiny-image', 'latin1');
const PDF_BYTES = Buffer.from('%PDF-1.7 a tiny document');
const WAV_BYTES = Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt a-tiny-sound', 'latin1');
const PNG = PNG_BYTES.toString('base64');
const PDF = PDF_BYTES.toString('base64');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const IMAGE_URL = 'https://files.example/cat.png';
const PDF_URL = 'https://files.example/report.pdf';
const PNG_SEEN = `image/png ${sha(PNG_BYTES)}`;
const PDF_SEEN = `application/pdf ${sha(PDF_BYTES)}`;

const received: ModelRequest[] = [];

/** A model that answers with what it received: one line per file part. */
const describer: LanguageModel = {
  provider: 'mock',
  modelId: 'vision',
  dialect: 'openai_responses',
  async *stream(request): AsyncGenerator<Event> {
    received.push(request as ModelRequest);
    const files = request.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'file' ? [p] : [])));
    const lines = files.map((f) => (f.data !== undefined ? `${f.mediaType} ${sha(Buffer.from(f.data, 'base64'))}` : `${f.mediaType} url ${f.url}`));
    yield { type: 'message-start' };
    yield { type: 'text-start', id: 't' };
    yield { type: 'text-delta', id: 't', delta: `I received ${files.length} files.\n${lines.join('\n')}` };
    yield { type: 'text-end', id: 't' };
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
  },
};

let server: ServerType;
let gatewayURL = '';

beforeAll(async () => {
  const app = createGateway({ routes: { vision: describer }, authorize: staticKeys({ [KEY]: { id: 'team-a' } }) });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      gatewayURL = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const dataURL = (type: string, data: string) => `data:${type};base64,${data}`;

/** Each caller format's image and document blocks, as its SDK sends them, and what the model must see. */
const GOOD: [Sdk, string, unknown[], string[]][] = [
  ['openai-chat', 'image_url (data URL)', [{ type: 'image_url', image_url: { url: dataURL('image/png', PNG) } }], [PNG_SEEN]],
  ['openai-chat', 'image_url (URL)', [{ type: 'image_url', image_url: { url: IMAGE_URL, detail: 'low' } }], [`url ${IMAGE_URL}`]],
  ['openai-chat', 'input_audio', [{ type: 'input_audio', input_audio: { data: WAV_BYTES.toString('base64'), format: 'wav' } }], [`audio/wav ${sha(WAV_BYTES)}`]],
  ['openai-chat', 'file (file_data)', [{ type: 'file', file: { filename: 'report.pdf', file_data: dataURL('application/pdf', PDF) } }], [PDF_SEEN]],
  ['openai-responses', 'input_image (data URL)', [{ type: 'input_image', image_url: dataURL('image/png', PNG), detail: 'auto' }], [PNG_SEEN]],
  ['openai-responses', 'input_image (URL)', [{ type: 'input_image', image_url: IMAGE_URL, detail: 'auto' }], [`url ${IMAGE_URL}`]],
  ['openai-responses', 'input_file (file_data)', [{ type: 'input_file', filename: 'report.pdf', file_data: dataURL('application/pdf', PDF) }], [PDF_SEEN]],
  ['openai-responses', 'input_file (file_url)', [{ type: 'input_file', file_url: PDF_URL }], [`url ${PDF_URL}`]],
  ['anthropic', 'image (base64)', [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }], [PNG_SEEN]],
  ['anthropic', 'image (url)', [{ type: 'image', source: { type: 'url', url: IMAGE_URL } }], [`url ${IMAGE_URL}`]],
  ['anthropic', 'document (base64 PDF)', [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }], [PDF_SEEN]],
  ['anthropic', 'document (plain text)', [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello, notes' } }], [`text/plain ${sha(Buffer.from('hello, notes'))}`]],
  ['anthropic', 'document (url)', [{ type: 'document', source: { type: 'url', url: PDF_URL } }], [`application/pdf url ${PDF_URL}`]],
  ['gemini', 'inlineData (image)', [{ inlineData: { mimeType: 'image/png', data: PNG } }], [PNG_SEEN]],
  ['gemini', 'inlineData (PDF)', [{ inlineData: { mimeType: 'application/pdf', data: PDF } }], [PDF_SEEN]],
  ['gemini', 'inlineData (audio)', [{ inlineData: { mimeType: 'audio/wav', data: WAV_BYTES.toString('base64') } }], [`audio/wav ${sha(WAV_BYTES)}`]],
  ['gemini', 'fileData (URI)', [{ fileData: { mimeType: 'application/pdf', fileUri: PDF_URL } }], [`application/pdf url ${PDF_URL}`]],
  ['ollama', 'images', [PNG], [`${sha(PNG_BYTES)}`]],
];

/** Blocks no run can use, per format: a typed 400 before any model call. */
const BAD: [Sdk, string, unknown[]][] = [
  ['openai-chat', 'file by file_id', [{ type: 'file', file: { file_id: 'file-abc123' } }]],
  ['openai-chat', 'image_url with broken base64', [{ type: 'image_url', image_url: { url: 'data:image/png;base64,%%%not-base64' } }]],
  ['openai-chat', 'input_audio with broken base64', [{ type: 'input_audio', input_audio: { data: '%%%not-base64', format: 'wav' } }]],
  ['openai-responses', 'input_file with broken base64', [{ type: 'input_file', filename: 'r.pdf', file_data: 'data:application/pdf;base64,%%%not-base64' }]],
  ['openai-responses', 'input_file by file_id', [{ type: 'input_file', file_id: 'file-abc123' }]],
  ['openai-responses', 'input_image by file_id', [{ type: 'input_image', file_id: 'file-abc123', detail: 'auto' }]],
  ['anthropic', 'image by Files API id', [{ type: 'image', source: { type: 'file', file_id: 'file_011abc' } }]],
  ['anthropic', 'document by Files API id', [{ type: 'document', source: { type: 'file', file_id: 'file_011abc' } }]],
  ['anthropic', 'document with broken base64', [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: '%%%not-base64' } }]],
  ['anthropic', 'image with broken base64', [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '%%%not-base64' } }]],
  ['gemini', 'inlineData with broken base64', [{ inlineData: { mimeType: 'image/png', data: '%%%not-base64' } }]],
  ['ollama', 'images with broken base64', ['%%%not-base64']],
];

/** The user message in the SDK's own format: a question and the blocks. */
function history(sdk: Sdk, blocks: unknown[]): unknown[] {
  switch (sdk) {
    case 'openai-chat':
      return [{ role: 'user', content: [{ type: 'text', text: 'What are these?' }, ...blocks] }];
    case 'openai-responses':
      return [{ role: 'user', content: [{ type: 'input_text', text: 'What are these?' }, ...blocks] }];
    case 'anthropic':
      return [{ role: 'user', content: [{ type: 'text', text: 'What are these?' }, ...blocks] }];
    case 'gemini':
      return [{ role: 'user', parts: [{ text: 'What are these?' }, ...blocks] }];
    case 'ollama':
      return [{ role: 'user', content: 'What are these?', images: blocks }];
  }
}

describe('image and document blocks through the gateway, sent by the official SDKs', () => {
  it.each(GOOD)('%s %s reaches the run as a file and is answered', async (sdk, _name, blocks, seen) => {
    for (const stream of [true, false]) {
      const before = received.length;
      const observed = await sdkTurn(sdk, { baseURL: gatewayURL, apiKey: KEY, model: 'vision', stream, history: history(sdk, blocks) });
      expect(observed.error).toBeUndefined();
      expect(received.length).toBe(before + 1);
      expect(observed.text).toContain(`I received ${seen.length} files.`);
      for (const line of seen) expect(observed.text).toContain(line);
    }
  });

  it.each(BAD)('%s %s is a typed 400 and starts no run', async (sdk, _name, blocks) => {
    const before = received.length;
    const observed = await sdkTurn(sdk, { baseURL: gatewayURL, apiKey: KEY, model: 'vision', stream: true, history: history(sdk, blocks) });
    expect(observed.error).toMatchObject({ status: 400 });
    expect(received.length).toBe(before);
  });
});
