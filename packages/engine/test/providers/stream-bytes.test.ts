/**
 * `onBytes`: a streaming provider model shows each chunk of the provider's body, unchanged, before the
 * events decoded from it, with the model that sent it (one `from` object per attempt).
 */
import { type DialectId, encodeResponseStream, getDialect } from '@parlance/dialects';
import { collectResponse } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { anthropic, defineProvider, google, ollama, openai, type Provider } from '../../src/providers/index.ts';
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

  // `relayDialect`: the caller takes the text from the bytes. The Anthropic and Ollama decoders then skip the
  // text deltas they can tell unparsed (Ollama's first, which opens the block, is decoded); every other event
  // is as decoded, and a model of another dialect, or a call without `onBytes`, decodes everything.
  const answer = (dialect: DialectId, modelId: string) =>
    new TextEncoder().encode(
      encodeResponseStream(
        getDialect(dialect),
        [
          { type: 'message-start', responseId: 'r-1', model: modelId },
          { type: 'text-start', id: 't' },
          ...['Relayed', ' as', ' sent.'].map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 3 } },
        ],
        { model: modelId, responseId: 'r-1' },
      ),
    );
  const call = async (dialect: DialectId, base: Provider, modelId: string, options: { relayDialect?: string; bytes?: boolean }) => {
    const sent = answer(dialect, modelId);
    const provider = base.withSettings({ apiKey: 'test-key-0123456789abcdef', baseURL: 'https://provider.test', dialect, retry: false, fetch: async () => new Response(sent) });
    const chunks: Uint8Array[] = [];
    const events = await drain(
      provider.model(modelId).stream({ messages: ask('hi') }, { ...(options.bytes === false ? {} : { onBytes: (chunk: Uint8Array) => chunks.push(chunk) }), ...(options.relayDialect ? { relayDialect: options.relayDialect } : {}) }),
    );
    return { events, chunks, sent };
  };

  it.each([
    ['anthropic_messages', anthropic, 'claude-sonnet-4-5', []],
    ['ollama_chat', ollama, 'llama3.2', ['Relayed']],
  ] as const)('relayDialect %s: the model leaves its text deltas out, and nothing else', async (dialect, base, modelId, kept) => {
    const full = await call(dialect, base, modelId, {});
    const relayed = await call(dialect, base, modelId, { relayDialect: dialect });
    expect(full.events.filter((event) => event.type === 'text-delta')).toHaveLength(3);
    expect(relayed.events).toEqual(full.events.filter((event) => event.type !== 'text-delta' || (kept as readonly string[]).includes(event.delta)));
    expect(Buffer.concat(relayed.chunks).equals(Buffer.from(relayed.sent))).toBe(true);
    expect(relayed.events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 3 } });
  });

  type Case = [string, DialectId, Provider, string, { relayDialect?: string; bytes?: boolean }];
  it.each<Case>([
    ['another dialect relayed', 'anthropic_messages', anthropic, 'claude-sonnet-4-5', { relayDialect: 'openai_completions' }],
    ['relayDialect without onBytes', 'anthropic_messages', anthropic, 'claude-sonnet-4-5', { relayDialect: 'anthropic_messages', bytes: false }],
    ...PROVIDERS.filter(([dialect]) => dialect !== 'anthropic_messages' && dialect !== 'ollama_chat').map(([dialect, base, modelId]): Case => [`${dialect} relayed as itself`, dialect, base, modelId, { relayDialect: dialect }]),
  ])('%s: every text delta decoded', async (_name, dialect, base, modelId, options) => {
    const { events } = await call(dialect, base, modelId, options);
    expect((await collectResponse(events)).message.parts).toMatchObject([{ type: 'text', text: 'Relayed as sent.' }]);
  });

  it("a provider whose own modifyEvents reads the events gets every text delta, relayed or not", async () => {
    const sent = answer('anthropic_messages', 'claude-sonnet-4-5');
    const seen: string[] = [];
    const mine = defineProvider(
      {
        id: 'mine',
        baseURL: 'https://provider.test',
        auth: 'none',
        dialect: 'anthropic_messages',
        async *modifyEvents(events) {
          for await (const event of events) {
            if (event.type === 'text-delta') seen.push(event.delta);
            yield event;
          }
        },
      },
      { retry: false, fetch: async () => new Response(sent) },
    );
    await drain(mine.model('claude-sonnet-4-5').stream({ messages: ask('hi') }, { onBytes: () => {}, relayDialect: 'anthropic_messages' }));
    expect(seen).toEqual(['Relayed', ' as', ' sent.']);
  });
});

