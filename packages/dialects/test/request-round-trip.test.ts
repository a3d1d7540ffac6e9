/**
 * Request decoding is the inverse of request encoding, per dialect:
 * - encode(decode(body)) === body for every body the encoder produces, from threads every
 *   dialect produced (reasoning with signatures and encrypted content, tool rounds with ids
 *   that repeat, results) and from requests using every field (tools, tool choice, output,
 *   thinking, cache, stop, extras);
 * - decode(encode(x)) keeps x's meaning (the same text, calls, results, settings);
 * - bodies as the official SDKs send them decode to what they mean;
 * - malformed bodies are `invalid_request` errors with the path of the problem.
 */
import { ParlanceError, type Message, type ModelRequest } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { getDialect } from '../src/registry.ts';
import { DIALECT_IDS, type DialectId } from '../src/types.ts';
import { buildThread, modelFor } from './handoff-thread.ts';
import { files, msg, plainTurn, text, thrownBy, user, weatherCalls } from './requests.ts';

type Json = Record<string, unknown>;

function roundTrip(dialect: DialectId, request: ModelRequest): { body: Json; again: Json; decoded: ModelRequest } {
  const d = getDialect(dialect);
  const body = d.encodeRequest(request) as Json;
  // Through JSON, as a body arrives over HTTP.
  const decoded = d.decodeRequest(JSON.parse(JSON.stringify(body)), { model: request.model, stream: true }).request;
  const again = d.encodeRequest(decoded) as Json;
  return { body, again, decoded };
}

const WEATHER_TOOL = { name: 'get_weather', description: 'Weather by city', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

/** Requests that use every field the protocol has, one concern each. */
function requests(dialect: DialectId): Record<string, ModelRequest> {
  // Models that take temperature and top_p together, so every setting round-trips (Claude 4.5+ and
  // OpenAI reasoning models do not: src/shared/sampling-rules.test.ts).
  const model = dialect === 'anthropic_messages' ? 'claude-sonnet-4-0' : dialect === 'openai_responses' ? 'gpt-4.1' : modelFor(dialect);
  const calls = weatherCalls('call_a', 'call_b');
  const results: Message = msg(
    'tool',
    { type: 'tool-result', toolCallId: 'call_a', name: 'get_weather', output: 'sunny' },
    { type: 'tool-result', toolCallId: 'call_b', name: 'get_weather', output: { temp: 21 } },
  );
  const image = dialect === 'ollama_chat' ? files.pngData : files.jpegUrl;
  return {
    plain: { model, ...plainTurn() },
    tools: { model, messages: [...calls, results, user('Thanks')], tools: [WEATHER_TOOL], toolChoice: 'auto' },
    'forced tool': { model, messages: [user('Weather?')], tools: [WEATHER_TOOL], toolChoice: { type: 'tool', name: 'get_weather' } },
    output: { model, messages: [user('JSON please')], output: { type: 'json', name: 'answer', schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } } },
    thinking: { model, messages: [user('Think')], thinking: { effort: 'high' }, maxOutputTokens: 20000 },
    'thinking off': { model, messages: [user('Quick')], thinking: false },
    files: { model, messages: [msg('user', text('What is this?'), image)] },
    extra: { model, messages: [user('Hi')], extra: dialect === 'google_gemini' ? { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] } : { metadata: { user: 'u1' } } },
  };
}

describe.each(DIALECT_IDS)('%s: decodeRequest inverts encodeRequest', (dialect) => {
  it.each(Object.keys(requests(dialect)))('re-encodes a body of "%s" to the same body', (name) => {
    const { body, again } = roundTrip(dialect, requests(dialect)[name]!);
    expect(again).toEqual(body);
  });

  it.each(DIALECT_IDS)('re-encodes a thread from %s (signatures, encrypted reasoning, tool rounds) to the same body', async (source) => {
    const thread = await buildThread(source, { origin: 'scripted', rounds: 2 });
    const request: ModelRequest = { model: modelFor(dialect), system: 'You answer weather questions.', messages: thread.messages, tools: thread.tools, thinking: { effort: 'low' } };
    const { body, again } = roundTrip(dialect, request);
    expect(again).toEqual(body);
  });

  it('keeps the meaning: text, calls with their inputs, results with their outputs, settings', () => {
    const { decoded } = roundTrip(dialect, requests(dialect).tools!);
    const parts = decoded.messages.flatMap((m) => m.parts.map((p) => ({ role: m.role, ...p })));
    expect(parts.filter((p) => p.type === 'tool-call').map((p) => p.type === 'tool-call' && [p.name, p.input])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Rome' }],
    ]);
    const results = parts.filter((p) => p.type === 'tool-result');
    expect(results).toHaveLength(2);
    // Each result answers its own call.
    const callIds = parts.flatMap((p) => (p.type === 'tool-call' ? [p.id] : []));
    expect(results.map((p) => p.type === 'tool-result' && p.toolCallId)).toEqual(callIds);
    expect(parts.filter((p) => p.type === 'text').map((p) => p.type === 'text' && p.text)).toEqual(['Weather in Paris and Rome?', 'Checking.', 'Thanks']);
    expect(decoded.tools?.map((t) => t.name)).toEqual(['get_weather']);
    const plain = roundTrip(dialect, requests(dialect).plain!).decoded;
    // The Responses API has no stop sequences, so its encoder sends none.
    expect(plain).toMatchObject({ maxOutputTokens: 256, temperature: 0.2, topP: 0.9, ...(dialect === 'openai_responses' ? {} : { stop: ['END'] }) });
    expect(`${plain.system}`).toContain('Be brief.');
  });
});

describe('bodies as the official SDKs send them', () => {
  it('Chat Completions: developer message, content parts, tool round, reasoning_effort, max_tokens', () => {
    const { request, stream } = getDialect('openai_completions').decodeRequest({
      model: 'gpt-5',
      messages: [
        { role: 'developer', content: 'Be terse.' },
        { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      ],
      max_tokens: 100,
      reasoning_effort: 'low',
      seed: 7,
      stream: true,
    });
    expect(stream).toBe(true);
    expect(request).toMatchObject({ model: 'gpt-5', system: 'Be terse.', maxOutputTokens: 100, thinking: { effort: 'low' }, extra: { seed: 7 } });
    expect(request.messages.map((m) => [m.role, m.parts.map((p) => p.type)])).toEqual([
      ['user', ['text', 'file']],
      ['assistant', ['tool-call']],
      ['tool', ['tool-result']],
    ]);
    expect(request.messages[1]!.parts[0]).toMatchObject({ id: 'call_1', name: 'f', input: { x: 1 } });
    expect(request.messages[2]!.parts[0]).toMatchObject({ toolCallId: 'call_1', name: 'f', output: 'done' });
  });

  it('Responses: a string input, instructions, and a stateless second turn with encrypted reasoning', () => {
    const responses = getDialect('openai_responses');
    expect(responses.decodeRequest({ model: 'gpt-5', input: 'Hi', instructions: 'Be kind.' }).request).toMatchObject({
      system: 'Be kind.',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    });
    const { request } = responses.decodeRequest({
      model: 'gpt-5',
      store: false,
      include: ['reasoning.encrypted_content'],
      input: [
        { role: 'user', content: 'Weather?' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Use the tool.' }], encrypted_content: 'gAAAA-opaque' },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temp":18}' },
      ],
    });
    expect(request.messages[1]!.parts[0]).toMatchObject({ type: 'reasoning', text: 'Use the tool.', signature: 'gAAAA-opaque' });
    const again = responses.encodeRequest(request) as Json;
    expect(again.input).toContainEqual({ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Use the tool.' }], encrypted_content: 'gAAAA-opaque' });
    expect(again).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
  });

  it('Anthropic: signed thinking and redacted thinking go back byte for byte', () => {
    const anthropic = getDialect('anthropic_messages');
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Call it.', signature: 'EqQBCkgIBxAB' },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3' },
            { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
      tools: [{ name: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    };
    const again = anthropic.encodeRequest(anthropic.decodeRequest(body).request) as Json;
    expect(again.messages).toEqual(body.messages.map((m) => (typeof m.content === 'string' ? { role: m.role, content: [{ type: 'text', text: m.content }] } : m)));
    expect(again).toMatchObject({ thinking: body.thinking, max_tokens: 2048 });
  });

  it('Gemini: thought signatures on function calls, responses paired by name, model and streaming from the URL', () => {
    const gemini = getDialect('google_gemini');
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQB' }, { functionCall: { name: 'weather', args: { city: 'Rome' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { output: 'sunny' } } }, { functionResponse: { name: 'weather', response: { temp: 9 } } }] },
      ],
      generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } },
    };
    const { request, stream } = gemini.decodeRequest(body, { model: 'gemini-2.5-flash', stream: true });
    expect(stream).toBe(true);
    expect(request.model).toBe('gemini-2.5-flash');
    expect(request.thinking).toEqual({ budgetTokens: 2048 });
    const [call1, call2] = request.messages[1]!.parts;
    const [result1, result2] = request.messages[2]!.parts;
    expect([result1, result2]).toMatchObject([{ toolCallId: (call1 as { id: string }).id, output: 'sunny' }, { toolCallId: (call2 as { id: string }).id, output: { temp: 9 } }]);
    const again = gemini.encodeRequest(request) as Json;
    expect(again.contents).toEqual(body.contents);
  });

  it('Ollama: streams unless told not to; tool results by name; options', () => {
    const ollama = getDialect('ollama_chat');
    const body = {
      model: 'qwen3',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', thinking: 'Call it.', tool_calls: [{ function: { name: 'weather', arguments: { city: 'Paris' } } }] },
        { role: 'tool', content: 'sunny', tool_name: 'weather' },
      ],
      options: { num_predict: 50, temperature: 0 },
      think: true,
    };
    const { request, stream } = ollama.decodeRequest(body);
    expect(stream).toBe(true);
    expect(ollama.decodeRequest({ ...body, stream: false }).stream).toBe(false);
    expect(request).toMatchObject({ maxOutputTokens: 50, temperature: 0, thinking: {} });
    const again = ollama.encodeRequest(request) as Json;
    expect(again.messages).toEqual(body.messages);
  });
});

describe.each(DIALECT_IDS)('%s: malformed bodies are typed errors with a path', (dialect) => {
  const bodies: [string, unknown, (string | number)[]][] = [
    ['not an object', [], []],
    ['messages that are not a list', dialect === 'google_gemini' ? { contents: 'hi' } : dialect === 'openai_responses' ? { model: 'm', input: 5 } : { model: 'm', messages: 'hi' }, [dialect === 'google_gemini' ? 'contents' : dialect === 'openai_responses' ? 'input' : 'messages']],
  ];
  it.each(bodies)('%s', (_name, body, path) => {
    const error = thrownBy(() => getDialect(dialect).decodeRequest(body, { model: 'm' }));
    expect(ParlanceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_request', path });
  });

  it('an unknown message role or part type names where it is', () => {
    const body =
      dialect === 'google_gemini'
        ? { contents: [{ role: 'user', parts: [{ executableCode: {} }] }] }
        : dialect === 'openai_responses'
          ? { model: 'm', input: [{ type: 'web_search_call' }] }
          : dialect === 'anthropic_messages'
            ? { model: 'm', messages: [{ role: 'user', content: [{ type: 'container_upload' }] }] }
            : { model: 'm', messages: [{ role: 'narrator', content: 'x' }] };
    const error = thrownBy(() => getDialect(dialect).decodeRequest(body, { model: 'm' }));
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect((error as ParlanceError).path?.length).toBeGreaterThan(1);
  });
});
