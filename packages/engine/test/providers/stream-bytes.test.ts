/**
 * `onBytes`: a streaming provider model shows each chunk of the provider's body, unchanged, before the
 * events decoded from it, with the model that sent it (one `from` object per attempt).
 */
import { type DialectId, encodeResponseStream, getDialect } from '@parlance/dialects';
import { collectResponse } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { anthropic, google, ollama, openai, type Provider } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';

const PROVIDERS: [DialectId, Provider, string][] = [
  ['openai_completions', openai, 'gpt-4.1'],
  ['openai_responses', openai, 'gpt-5'],
  ['anthropic_messages', anthropic, 'claude-sonnet-4-5'],
  ['google_gemini', google, 'gemini-2.5-flash'],
  ['ollama_chat', ollama, 'llama3.2'],
];

describe('a streaming provider model shows the bytes it reads', () => {
  it.each(PROVIDERS)('%s: every chunk unchanged, in order, before its events; a new `from` per call', async (dialect, base, modelId) => {
    const wire = encodeResponseStream(
      getDialect(dialect),
      [
        { type: 'message-start', responseId: 'r-9', model: modelId },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Bytes as sent.' },
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 2 } },
      ],
      { model: modelId, responseId: 'r-9' },
    );
    const sent = new TextEncoder().encode(wire);
    const body = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < sent.length; at += 13) controller.enqueue(sent.slice(at, at + 13));
          controller.close();
        },
      });
    const provider = base.withSettings({ apiKey: 'test-key-0123456789abcdef', baseURL: 'https://provider.test', dialect, retry: false, fetch: async () => new Response(body()) });
    const model = provider.model(modelId);
    const seen: { chunk: Uint8Array; from: object }[] = [];
    const events = await drain(model.stream({ messages: ask('hi') }, { onBytes: (chunk, from) => seen.push({ chunk, from }) }));
    expect(Buffer.concat(seen.map((s) => s.chunk)).equals(Buffer.from(sent))).toBe(true);
    expect(seen[0]!.from).toMatchObject({ provider: model.provider, model: modelId, dialect });
    expect(new Set(seen.map((s) => s.from)).size).toBe(1);
    expect((await collectResponse(events)).message.parts).toMatchObject([{ type: 'text', text: 'Bytes as sent.' }]);

    const again: object[] = [];
    await drain(model.stream({ messages: ask('hi') }, { onBytes: (_chunk, from) => again.push(from) }));
    expect(again[0]).not.toBe(seen[0]!.from);
  });
});
