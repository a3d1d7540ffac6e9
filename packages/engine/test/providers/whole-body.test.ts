/**
 * `stream: false`: a provider model asks for one JSON body (each built-in dialect's own way), reads it
 * through the dialect's stream decoder, hands it to `onBody`, and keeps every failure an event.
 */
import { getDialect, type DialectId } from '@parlance/dialects';
import { collectResponse, type Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { anthropic, google, ollama, openai, type Provider } from '../../src/providers/index.ts';
import { MAX_WHOLE_BODY_BYTES } from '../../src/transport/decode-response.ts';
import { ask, drain } from '../helpers.ts';

const KEY = 'test-key-0123456789abcdef';
const PROVIDERS: [DialectId, Provider, string][] = [
  ['openai_completions', openai, 'gpt-4.1'],
  ['openai_responses', openai, 'gpt-5'],
  ['anthropic_messages', anthropic, 'claude-sonnet-4-5'],
  ['google_gemini', google, 'gemini-2.5-flash'],
  ['ollama_chat', ollama, 'llama3.2'],
];

/** A provider whose server answers every request with `answer`, recording what it was sent. */
function serving(provider: Provider, dialect: DialectId, answer: () => Response) {
  const seen: { url: string; body: Record<string, unknown>; accept: string | null }[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(url), body: JSON.parse(String(init?.body)), accept: new Headers(init?.headers).get('accept') });
    return answer();
  };
  return { seen, provider: provider.withSettings({ apiKey: KEY, baseURL: 'https://provider.test', dialect, retry: false, fetch }) };
}

describe('a provider model asked for one body', () => {
  it.each(PROVIDERS)('%s: sends a non-streaming request and decodes the whole body', async (dialect, base, modelId) => {
    const body = getDialect(dialect).encodeResponse(
      { id: 'r-9', model: modelId, message: { id: 'm', role: 'assistant', parts: [{ type: 'text', text: 'Whole.' }] }, finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 2 } },
      { model: modelId, responseId: 'r-9' },
    );
    const { seen, provider } = serving(base, dialect, () => Response.json(body));
    const bodies: unknown[] = [];
    const events = await drain(provider.model(modelId).stream({ messages: ask('hi') }, { stream: false, onBody: (json, from) => bodies.push([json, from.dialect]) }));
    const response = await collectResponse(events);
    expect(response.message.parts).toMatchObject([{ type: 'text', text: 'Whole.' }]);
    expect(response.usage).toMatchObject({ inputTokens: 4, outputTokens: 2 });
    expect(bodies).toEqual([[body, dialect]]);
    const sent = seen[0]!;
    expect(sent.accept).toBe('application/json');
    if (dialect === 'google_gemini') expect(sent.url).toMatch(/:generateContent$/);
    else expect(sent.body.stream).toBe(false);
    expect(sent.body.stream_options).toBeUndefined();

    // Without the option, the same model streams.
    const streamed = serving(base, dialect, () => new Response(''));
    await drain(streamed.provider.model(modelId).stream({ messages: ask('hi') }));
    if (dialect === 'google_gemini') expect(streamed.seen[0]!.url).toContain(':streamGenerateContent?alt=sse');
    else expect(streamed.seen[0]!.body.stream).toBe(true);
  });

  const failures: [string, () => Response, string][] = [
    ['a body that is not JSON', () => new Response('<html>oops</html>', { headers: { 'content-type': 'text/html' } }), 'invalid_response'],
    ['a body longer than the bound', () => new Response(new Uint8Array(MAX_WHOLE_BODY_BYTES + 1)), 'invalid_response'],
    [
      'a body cut by the network',
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"id":'));
              controller.error(new Error('reset'));
            },
          }),
        ),
      'network',
    ],
  ];
  it.each(failures)('%s is an error event with a typed code, never a throw', async (_name, answer, code) => {
    const { provider } = serving(openai, 'openai_completions', answer);
    const events: Event[] = await drain(provider.model('gpt-4.1').stream({ messages: ask('hi') }, { stream: false }));
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code });
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });
});
