// Attachments through the demo API: @parlance/client's ChatStore sends files (`send({ files })`),
// the server stores them and the thread holds references; the engine resolves them into the
// Anthropic request and the mock model describes each by the SHA-256 of the bytes it received.
import { createHash } from 'node:crypto';
import { ChatStore } from '@parlance/client';
import { messageText } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createDemoApi } from './api.ts';
import { describeFiles } from './describe-files.ts';

describe('attachments in the demo', () => {
  it('the mock model describes each file by the hash of the bytes the engine sent it', async () => {
    const api = createDemoApi({ env: {}, delayScale: 0, ollama: false });
    const fetch: typeof globalThis.fetch = async (input, init) => api.app.request(String(input), init);
    const chat = new ChatStore({ api: 'http://demo.local/api', fetch, threadId: 't1', model: 'demo:mock', retryDelayMs: 0 });
    chat.schedule = (flush) => queueMicrotask(flush);
    const image = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const pdf = new TextEncoder().encode('%PDF-1.4 tiny');
    await chat.send({ text: 'What are these?', files: [new File([image], 'a.png', { type: 'image/png' }), new File([pdf], 'b.pdf', { type: 'application/pdf' })] });
    const thread = chat.getSnapshot().thread;
    expect(thread.messages[0]!.parts.filter((p) => p.type === 'file').every((p) => p.type === 'file' && p.ref && p.data === undefined)).toBe(true);
    const answer = messageText(thread.messages.at(-1)!);
    expect(answer).toContain(`image/png, 7 bytes, sha256 \`${createHash('sha256').update(image).digest('hex')}\``);
    expect(answer).toContain(`application/pdf, ${pdf.length} bytes, sha256 \`${createHash('sha256').update(pdf).digest('hex')}\``);
  });

  it('describeFiles reads image and document blocks, inline, as text or by URL', () => {
    expect(
      describeFiles([
        { type: 'text' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: btoa('abc') } },
        { type: 'document', source: { type: 'text', data: 'hello' } },
        { type: 'image', source: { type: 'url', url: 'https://x.example/a.png' } },
      ]),
    ).toEqual([
      `an image (image/png, 3 bytes, sha256 \`${createHash('sha256').update('abc').digest('hex')}\`)`,
      'a document (plain text, 5 characters)',
      'an image at https://x.example/a.png',
    ]);
  });
});
