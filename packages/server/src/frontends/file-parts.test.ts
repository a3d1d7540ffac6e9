/**
 * Files through the frontends: the AI SDK's `file` parts (data URLs and URLs, as `useChat`'s
 * `files` makes them) and AG-UI 1.0's image and document parts (data and url sources) reach the
 * runner as protocol file parts; an AG-UI provider file id is a typed 400, not bytes.
 */
import type { RunAgentInput } from '@ag-ui/core';
import type { FilePart } from '@parlance/protocol';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { textRunner } from '../../test/helpers.ts';
import { createMemoryRunStore } from '../memory-run-store.ts';
import { createAgUiRoutes } from './ag-ui-routes.ts';
import { createAiSdkRoutes } from './ai-sdk-routes.ts';

const PNG = btoa('\x89PNG\r\n\x1a\n-image');
const PDF = btoa('%PDF-1.7 document');

function app() {
  const { runner, calls } = textRunner(['I see them.']);
  const options = { models: [{ id: 'mock:vision', provider: 'mock' }], run: runner, env: { PARLANCE_SECRET: 'files-frontends-secret-0123456789abcdef' }, store: createMemoryRunStore(), onError: () => {} };
  const hono = new Hono().route('/api/chat', createAiSdkRoutes(options)).route('/api/ag-ui', createAgUiRoutes(options));
  const files = () => calls.at(-1)!.thread.messages.flatMap((m) => m.parts.filter((p): p is FilePart => p.type === 'file'));
  return { hono, calls, files };
}

describe('file parts through the frontends', () => {
  it('AI SDK: file parts as data URLs and URLs reach the run as files', async () => {
    const { hono, files } = app();
    const transport = new DefaultChatTransport<UIMessage>({ api: 'http://localhost/api/chat', fetch: ((input, init) => hono.request(String(input), init)) as typeof fetch });
    const message: UIMessage = {
      id: 'u1',
      role: 'user',
      parts: [
        { type: 'text', text: 'What are these?' },
        { type: 'file', mediaType: 'image/png', filename: 'a.png', url: `data:image/png;base64,${PNG}` },
        { type: 'file', mediaType: 'application/pdf', filename: 'b.pdf', url: 'https://files.example/b.pdf' },
      ],
    };
    const stream = await transport.sendMessages({ chatId: 'c1', messages: [message], trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
    for await (const _ of readUIMessageStream({ stream })) {
      // read to the end
    }
    expect(files()).toEqual([
      { type: 'file', mediaType: 'image/png', filename: 'a.png', data: PNG },
      { type: 'file', mediaType: 'application/pdf', filename: 'b.pdf', url: 'https://files.example/b.pdf' },
    ]);
  });

  const agUi = (content: unknown): RunAgentInput =>
    ({ threadId: 't1', runId: 'r1', state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: 'u1', role: 'user', content }] }) as unknown as RunAgentInput;
  const post = (hono: Hono, body: RunAgentInput) => hono.request('/api/ag-ui', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', accept: 'text/event-stream' } });

  it('AG-UI: image and document parts with data and url sources reach the run as files', async () => {
    const { hono, files } = app();
    const response = await post(
      hono,
      agUi([
        { type: 'text', text: 'What are these?' },
        { type: 'image', source: { type: 'data', value: PNG, mimeType: 'image/png' } },
        { type: 'document', source: { type: 'url', value: 'https://files.example/b.pdf', mimeType: 'application/pdf' } },
        { type: 'document', source: { type: 'data', value: PDF, mimeType: 'application/pdf' } },
      ]),
    );
    expect(response.status).toBe(200);
    await response.text();
    expect(files()).toEqual([
      { type: 'file', mediaType: 'image/png', data: PNG },
      { type: 'file', mediaType: 'application/pdf', url: 'https://files.example/b.pdf' },
      { type: 'file', mediaType: 'application/pdf', data: PDF },
    ]);
  });

  it('AG-UI: a provider file id is refused with a typed 400 and nothing runs', async () => {
    const { hono, calls } = app();
    const response = await post(hono, agUi([{ type: 'image', source: { type: 'file', value: 'file-abc123', provider: 'openai' } }]));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    expect(calls).toHaveLength(0);
  });
});
