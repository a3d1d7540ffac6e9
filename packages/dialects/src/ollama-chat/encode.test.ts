import { ParlanceError, type ModelRequest } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { anthropicReasoning, anthropicRedactedReasoning, checkedEncoder, files, msg, plainTurn, text, thrownBy, user } from '../../test/requests.ts';
import { validateAgainst } from '../../test/schemas.ts';
import { ollamaChat } from './index.ts';

const encode = checkedEncoder(ollamaChat, 'qwen3:8b', (body) => validateAgainst('ollama__ollama__openapi.yaml', '/components/schemas/ChatRequest', body));

describe('ollama_chat encodeRequest', () => {
  it('posts to /api/chat', () => {
    expect(ollamaChat.path('llama3.2')).toBe('/api/chat');
  });

  it('encodes a plain turn with system prompt and options, always streaming', () => {
    const body = encode(plainTurn());
    expect(body).toEqual({
      model: 'qwen3:8b',
      messages: [
        { role: 'system', content: 'Be brief.\n\nAnswer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      stream: true,
      options: { num_predict: 256, temperature: 0.2, top_p: 0.9, stop: ['END'] },
    });
  });

  it('sends images as base64 and inlines text files', () => {
    const notes = { type: 'file', mediaType: 'text/plain', data: btoa('notes: 42') } as const;
    const body = encode({ messages: [msg('user', text('What is this?'), files.pngData, files.jpegDataUrl, notes)] });
    expect(body.messages).toEqual([{ role: 'user', content: 'What is this?\nnotes: 42', images: ['iVBORw0KGgo=', '/9j/4AAQ'] }]);
  });

  it('fails on an image URL with invalid_request and the part path', () => {
    const request: ModelRequest = {
      model: 'llava',
      messages: [user('a'), msg('user', text('See'), { type: 'file', mediaType: 'image/png', url: 'https://example.com/cat.png' })],
    };
    const error = thrownBy(() => ollamaChat.encodeRequest(request));
    expect(ParlanceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_request', path: ['messages', 1, 'parts', 1] });
    expect(() => ollamaChat.encodeRequest({ model: 'm', messages: [msg('user', files.pdfData)] })).toThrow(/application\/pdf/);
  });

  it('encodes a two-step tool loop: thinking and calls back, results by tool_name', () => {
    const body = encode({
      tools: [{ name: 'get_weather', description: 'Weather for a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
      messages: [
        user('Weather in Toronto?'),
        msg(
          'assistant',
          anthropicReasoning('Need the tool.'),
          anthropicRedactedReasoning(),
          { type: 'tool-call', id: 'call_0', name: 'get_weather', input: { city: 'Toronto' } },
          { type: 'tool-call', id: 'srv', name: 'web_search', input: {}, providerExecuted: true },
        ),
        msg(
          'tool',
          { type: 'tool-result', toolCallId: 'call_0', name: 'get_weather', output: '11 degrees celsius' },
          { type: 'tool-result', toolCallId: 'gone', name: 'get_weather', output: 'orphan' },
        ),
        msg('assistant', text('It is 11°C.')),
        user('And tomorrow?'),
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather in Toronto?' },
      { role: 'assistant', content: '', thinking: 'Need the tool.', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Toronto' } } }] },
      { role: 'tool', content: '11 degrees celsius', tool_name: 'get_weather' },
      { role: 'assistant', content: 'It is 11°C.' },
      { role: 'user', content: 'And tomorrow?' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      },
    ]);
  });

  it('serializes object results and marks failed ones', () => {
    const body = encode({
      messages: [
        msg('assistant', { type: 'tool-call', id: 'c', name: 'f', input: '{"a":1}' }, { type: 'tool-call', id: 'c2', name: 'f', input: {} }),
        msg(
          'tool',
          { type: 'tool-result', toolCallId: 'c', name: 'f', output: { ok: true } },
          { type: 'tool-result', toolCallId: 'c2', name: 'f', output: 'boom', isError: true },
        ),
      ],
    });
    expect(body.messages[0].tool_calls[0].function.arguments).toEqual({ a: 1 });
    expect(body.messages.slice(1)).toEqual([
      { role: 'tool', content: '{"ok":true}', tool_name: 'f' },
      { role: 'tool', content: 'Error: boom', tool_name: 'f' },
    ]);
  });

  it('asks for structured output with format', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    expect(encode({ messages: [user('Count')], output: { type: 'json', schema } }).format).toEqual(schema);
  });

  it('sends no cache hint (Ollama caches prefixes itself) and passes keep_alive through extra', () => {
    const body = encode({ messages: [user('Hi')], cache: { key: 'k', breakpoints: true }, extra: { keep_alive: '10m' } });
    expect(body.keep_alive).toBe('10m');
    expect(Object.keys(body).sort()).toEqual(['keep_alive', 'messages', 'model', 'stream']);
  });

  it.each([
    ['qwen3:8b', { effort: 'high' }, true],
    ['qwen3:8b', { budgetTokens: 1000 }, true],
    ['qwen3:8b', false, false],
    ['gpt-oss:20b', { effort: 'minimal' }, 'low'],
    ['gpt-oss:120b', { effort: 'xhigh' }, 'high'],
    ['gpt-oss:20b', { effort: 'medium' }, 'medium'],
  ] as const)('maps thinking for %s %j to think=%j', (model, thinking, expected) => {
    expect(encode({ model, messages: [user('Hi')], thinking }).think).toBe(expected);
  });

  it('maps toolChoice as far as Ollama allows', () => {
    const tools = [
      { name: 'a', inputSchema: { type: 'object' } },
      { name: 'b', inputSchema: { type: 'object' } },
    ];
    expect(encode({ messages: [user('Hi')], tools, toolChoice: 'none' }).tools).toBeUndefined();
    expect(encode({ messages: [user('Hi')], tools, toolChoice: { type: 'tool', name: 'b' } }).tools.map((t: any) => t.function.name)).toEqual(['b']);
    expect(encode({ messages: [user('Hi')], tools, toolChoice: 'required' }).tools).toHaveLength(2);
  });

  it('the schema check rejects a malformed body', () => {
    expect(validateAgainst('ollama__ollama__openapi.yaml', '/components/schemas/ChatRequest', { model: 'm', messages: [{ role: 'robot', content: '' }] })).not.toBe('');
  });
});
