import { ParlanceError, type ModelRequest } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { answered, checkedEncoder, files, msg, plainTurn, text, thrownBy, weatherCalls } from '../../test/requests.ts';
import { validateAgainst } from '../../test/schemas.ts';
import { anthropicMessages } from './index.ts';

const SCHEMA_FILE = 'anthropic__lingua__openapi.yml';

/** Encodes and checks the body against the published request schema (closed: unknown fields fail). */
const encode = checkedEncoder(anthropicMessages, 'claude-sonnet-4-0', (body) => validateAgainst(SCHEMA_FILE, '/components/schemas/CreateMessageParams', body));
/** The same, against the beta surface's schema. */
const encodeBeta = checkedEncoder(anthropicMessages, 'claude-sonnet-4-0', (body) => validateAgainst(SCHEMA_FILE, '/components/schemas/BetaCreateMessageParams', body));

describe('anthropic_messages encoding', () => {
  it('encodes a plain turn with the documented defaults', () => {
    // Without maxOutputTokens, to see the default.
    const { maxOutputTokens: _, ...turn } = plainTurn();
    const body = encode(turn);
    expect(anthropicMessages.path('claude-sonnet-4-0')).toBe('/v1/messages');
    expect(body).toEqual({
      model: 'claude-sonnet-4-0',
      max_tokens: 8192,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in French.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      stream: true,
    });
  });

  it('merges consecutive turns of one role so user and assistant alternate, and skips empty text', () => {
    const body = encode({
      messages: [msg('user', text('a')), msg('user', text(''), text('b')), msg('assistant', text('c')), msg('assistant', text('d'))],
      maxOutputTokens: 100,
    });
    expect(body.max_tokens).toBe(100);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'c' }, { type: 'text', text: 'd' }] },
    ]);
  });

  it('encodes images and documents from base64 data, URLs and data URLs', () => {
    const body = encode({
      messages: [
        msg(
          'user',
          text('Look'),
          files.pngData,
          files.jpegUrl,
          { type: 'file', mediaType: 'image/webp', url: 'data:image/webp;base64,UklGRg==' },
          files.pdfData,
          files.pdfUrl,
          { type: 'file', mediaType: 'text/plain', data: btoa('plain notes') },
        ),
      ],
    });
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'Look' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: 'UklGRg==' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'report.pdf' },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain notes' } },
    ]);
  });

  it('rejects a file type the API cannot take with a typed error pointing at the part', () => {
    const request: ModelRequest = {
      model: 'claude-sonnet-4-0',
      messages: [msg('user', text('x'), { type: 'file', mediaType: 'audio/wav', data: 'AAAA' })],
    };
    const error = thrownBy(() => anthropicMessages.encodeRequest(request));
    expect(ParlanceError.isInstance(error)).toBe(true);
    expect((error as ParlanceError).code).toBe('invalid_request');
    expect((error as ParlanceError).path).toEqual(['messages', 0, 'parts', 1]);
  });

  it('encodes a two-step tool loop with ids rewritten consistently and results merged into one user turn', () => {
    const body = encode({
      tools: [{ name: 'get_weather', description: 'Weather by city', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
      toolChoice: 'required',
      messages: [
        // Two ids that differ only in characters the API does not allow.
        ...weatherCalls('call:1/oslo', 'call:1.oslo'),
        msg('tool', { type: 'tool-result', toolCallId: 'call:1/oslo', name: 'get_weather', output: { temp: 3 } }),
        msg('tool', { type: 'tool-result', toolCallId: 'call:1.oslo', name: 'get_weather', output: 'error: timeout', isError: true }),
        msg('user', text('And tomorrow?')),
      ],
    });
    expect(body.tools).toEqual([
      { name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'any' });
    const [first, second] = body.messages[1].content.slice(1).map((b: any) => b.id);
    expect(first).toBe('call_1_oslo');
    expect(second).not.toBe(first);
    expect(second).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(body.messages).toHaveLength(3);
    expect(body.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: first, content: '{"temp":3}' },
        { type: 'tool_result', tool_use_id: second, content: 'error: timeout', is_error: true },
        { type: 'text', text: 'And tomorrow?' },
      ],
    });
  });

  it('answers a call that has no result and drops a result that has no call', () => {
    const body = encode({
      messages: [
        msg('user', text('go')),
        msg('assistant', { type: 'tool-call', id: 'toolu_lost', name: 'f', input: {} }),
        msg('tool', { type: 'tool-result', toolCallId: 'toolu_ghost', name: 'g', output: 'orphan' }),
        msg('user', text('next')),
      ],
    });
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_lost', content: expect.any(String), is_error: true },
      { type: 'text', text: 'next' },
    ]);
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    [{ type: 'tool', name: 'f' }, { type: 'tool', name: 'f' }],
  ] as const)('maps toolChoice %j', (choice, expected) => {
    const body = encode({ tools: [{ name: 'f', inputSchema: { type: 'object' } }], toolChoice: choice, messages: [msg('user', text('x'))] });
    expect(body.tool_choice).toEqual(expected);
  });

  it('sends reasoning back as thinking with its signature, redacted thinking with its data, and foreign reasoning as text', () => {
    const body = encode({
      messages: [
        ...answered(
          'q',
          { type: 'reasoning', text: 'Mine.', signature: 'sig1', providerState: { anthropic_messages: { signature: 'sig1' } } },
          { type: 'reasoning', text: '', redacted: true, providerState: { anthropic_messages: { redactedData: 'opaque' } } },
          { type: 'reasoning', text: 'From Gemini.', signature: 'gsig', providerState: { google_gemini: { thoughtSignature: 'gsig' } } },
          { type: 'reasoning', text: '', redacted: true, providerState: { openai_responses: { encryptedContent: 'enc' } } },
          text('Answer.'),
        ),
        msg('user', text('more')),
      ],
    });
    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'Mine.', signature: 'sig1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: '<thinking>From Gemini.</thinking>' },
      { type: 'text', text: 'Answer.' },
    ]);
  });

  it('keeps this dialect\'s server tool calls and results and drops other dialects\'', () => {
    const body = encode({
      messages: answered(
        'search',
        { type: 'tool-call', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' }, providerExecuted: true, providerState: { anthropic_messages: { type: 'server_tool_use' } } },
        {
          type: 'tool-result',
          toolCallId: 'srvtoolu_1',
          name: 'web_search',
          output: [{ type: 'web_search_result', url: 'https://a.example', title: 'A', encrypted_content: 'enc' }],
          providerExecuted: true,
          providerState: { anthropic_messages: { type: 'web_search_tool_result' } },
        },
        { type: 'tool-call', id: 'ws_9', name: 'web_search', input: {}, providerExecuted: true, providerState: { openai_responses: { itemId: 'ws_9' } } },
        { type: 'tool-result', toolCallId: 'ws_9', name: 'web_search', output: {}, providerExecuted: true },
        text('Found it.'),
      ),
    });
    expect(body.messages[1].content).toEqual([
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: [{ type: 'web_search_result', url: 'https://a.example', title: 'A', encrypted_content: 'enc' }],
      },
      { type: 'text', text: 'Found it.' },
    ]);
  });

  it('sends a compaction block back (beta surface)', () => {
    const body = encodeBeta({
      messages: [
        msg('user', text('long chat')),
        msg('assistant', { type: 'reasoning', text: 'Summary.', providerState: { anthropic_messages: { type: 'compaction' } } }, text('Ok.')),
        msg('user', text('next')),
      ],
    });
    expect(body.messages[1].content[0]).toEqual({ type: 'compaction', content: 'Summary.' });
  });

  it('encodes structured output as output_config.format with closed object schemas', () => {
    const body = encode({
      messages: [msg('user', text('Extract'))],
      output: {
        type: 'json',
        schema: {
          type: 'object',
          properties: { people: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } },
          required: ['people'],
        },
      },
    });
    expect(body.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          properties: {
            people: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false } },
          },
          required: ['people'],
          additionalProperties: false,
        },
      },
    });
  });

  it('places cache breakpoints on the system prompt, the last tool and the last message', () => {
    const body = encode({
      system: 'Long instructions',
      tools: [
        { name: 'a', inputSchema: { type: 'object' } },
        { name: 'b', inputSchema: { type: 'object' } },
      ],
      messages: [msg('user', text('first')), msg('assistant', text('reply')), msg('user', text('q'), { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' })],
      cache: { ttl: '1h' },
    });
    const mark = { type: 'ephemeral', ttl: '1h' };
    expect(body.system).toEqual([{ type: 'text', text: 'Long instructions', cache_control: mark }]);
    expect(body.tools[0].cache_control).toBeUndefined();
    expect(body.tools[1].cache_control).toEqual(mark);
    expect(body.messages[0].content[0].cache_control).toBeUndefined();
    expect(body.messages[2].content[0].cache_control).toBeUndefined();
    expect(body.messages[2].content[1].cache_control).toEqual(mark);
    const off = encode({ system: 's', messages: [msg('user', text('q'))], cache: { breakpoints: false } });
    expect(JSON.stringify(off)).not.toContain('cache_control');
  });

  it('maps thinking settings to budgets and leaves out what the API rejects with thinking', () => {
    const effort = encode({ messages: [msg('user', text('q'))], thinking: { effort: 'high' }, temperature: 0.2, topP: 0.5 });
    expect(effort.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(effort.max_tokens).toBe(16384 + 8192);
    expect(effort.temperature).toBeUndefined();
    expect(effort.top_p).toBeUndefined();

    const xhigh = encode({ messages: [msg('user', text('q'))], thinking: { effort: 'xhigh' }, topP: 0.96 });
    expect(xhigh.thinking.budget_tokens).toBe(24576);
    expect(xhigh.max_tokens).toBe(32000);
    expect(xhigh.top_p).toBe(0.96);

    const budget = encode({ messages: [msg('user', text('q'))], thinking: { budgetTokens: 500 }, maxOutputTokens: 4000 });
    expect(budget.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(budget.max_tokens).toBe(4000);

    const clamped = encode({ messages: [msg('user', text('q'))], thinking: { budgetTokens: 10000 }, maxOutputTokens: 3000 });
    expect(clamped.thinking).toEqual({ type: 'enabled', budget_tokens: 2999 });

    expect(encode({ messages: [msg('user', text('q'))], thinking: false }).thinking).toEqual({ type: 'disabled' });
    expect(encode({ messages: [msg('user', text('q'))], thinking: {} }).thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });

    expect(() =>
      anthropicMessages.encodeRequest({ model: 'm', messages: [msg('user', text('q'))], thinking: { effort: 'low' }, maxOutputTokens: 1000 }),
    ).toThrow(/1024/);
  });

  it('leaves thinking off in a tool loop begun without a thinking block, and on once the loop is over', () => {
    const loop = [
      msg('user', text('q')),
      msg('assistant', { type: 'tool-call', id: 'call_1', name: 'f', input: {} }),
      msg('tool', { type: 'tool-result', toolCallId: 'call_1', name: 'f', output: 'ok' }),
    ];
    const inLoop = encode({ messages: loop, thinking: { effort: 'low' }, temperature: 0.5 });
    expect(inLoop.thinking).toBeUndefined();
    expect(inLoop.max_tokens).toBe(8192);
    expect(inLoop.temperature).toBe(0.5);
    const after = encode({ messages: [...loop, msg('assistant', text('done')), msg('user', text('next'))], thinking: { effort: 'low' } });
    expect(after.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const signed = encode({
      messages: [
        loop[0]!,
        msg('assistant', { type: 'reasoning', text: 't', providerState: { anthropic_messages: { signature: 's' } } }, loop[1]!.parts[0]!),
        loop[2]!,
      ],
      thinking: { effort: 'low' },
    });
    expect(signed.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('merges extra last, verbatim', () => {
    const body = encode({
      messages: [msg('user', text('q'))],
      extra: { metadata: { user_id: 'u1' }, max_tokens: 77, thinking: { type: 'adaptive' } },
    });
    expect(body.metadata).toEqual({ user_id: 'u1' });
    expect(body.max_tokens).toBe(77);
    expect(body.thinking).toEqual({ type: 'adaptive' });
  });
});
