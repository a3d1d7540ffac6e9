import { collectResponse, type Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { anthropicReasoning, anthropicRedactedReasoning, anthropicServerSearch, answered, checkedEncoder, files, msg, plainTurn, text, user } from '../../test/requests.ts';
import { GOOGLE_SCHEMA, validateAgainstDiscovery } from '../../test/schemas.ts';
import { decodeDialectText } from '../decode-stream.ts';
import { googleGemini } from './index.ts';

// Every body must be a valid GenerateContentRequest (field names checked: the server is closed).
const encode = checkedEncoder(googleGemini, 'gemini-2.5-flash', (body) => validateAgainstDiscovery(GOOGLE_SCHEMA, 'GenerateContentRequest', body));

describe('google_gemini encodeRequest', () => {
  it('builds the streaming path from the model name', () => {
    expect(googleGemini.path('gemini-2.5-flash')).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(googleGemini.path('models/gemini-3-pro-preview')).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse');
  });

  it('encodes a plain turn with the system prompt and system messages joined', () => {
    const body = encode(plainTurn());
    expect(body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.\n\nAnswer in French.' }] },
      generationConfig: { maxOutputTokens: 256, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
    });
  });

  it('sends images inline (base64 or data URL) and by URI', () => {
    const uploaded = { type: 'file', mediaType: 'application/pdf', url: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } as const;
    const body = encode({ messages: [msg('user', text('Compare'), files.pngData, files.jpegDataUrl, uploaded)] });
    expect(body.contents[0].parts).toEqual([
      { text: 'Compare' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
      { fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
    ]);
  });

  it('encodes a two-step tool loop: calls with signatures, results matched by name in a user turn', () => {
    const body = encode({
      tools: [
        { name: 'weather', description: 'Weather for a city', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        { name: 'now', inputSchema: { type: 'object', properties: {} } },
      ],
      toolChoice: 'auto',
      messages: [
        user('Weather in Paris and Rome?'),
        msg(
          'assistant',
          { type: 'tool-call', id: 'call_0', name: 'weather', input: { city: 'Paris' }, providerState: { google_gemini: { thoughtSignature: 'sig-1' } } },
          { type: 'tool-call', id: 'call_1', name: 'weather', input: { city: 'Rome' } },
        ),
        msg(
          'tool',
          { type: 'tool-result', toolCallId: 'call_0', name: 'weather', output: { tempC: 18 } },
          { type: 'tool-result', toolCallId: 'call_1', name: 'weather', output: 'timeout', isError: true },
          { type: 'tool-result', toolCallId: 'call_missing', name: 'weather', output: 'orphan' },
        ),
        msg('assistant', text('Paris is 18°C.')),
        user('Thanks'),
      ],
    });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-1' },
          { functionCall: { name: 'weather', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'weather', response: { tempC: 18 } } },
          { functionResponse: { name: 'weather', response: { error: 'timeout' } } },
        ],
      },
      { role: 'model', parts: [{ text: 'Paris is 18°C.' }] },
      { role: 'user', parts: [{ text: 'Thanks' }] },
    ]);
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'weather', description: 'Weather for a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
          { name: 'now' },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
  });

  it('sends a provider function-call id back on the call and its response', () => {
    const body = encode({
      messages: [
        user('Go'),
        msg('assistant', { type: 'tool-call', id: 'fc-9', name: 'f', input: {}, providerState: { google_gemini: { id: 'fc-9' } } }),
        msg('tool', { type: 'tool-result', toolCallId: 'fc-9', name: 'f', output: [1, 2] }),
      ],
    });
    expect(body.contents[1].parts[0].functionCall).toEqual({ id: 'fc-9', name: 'f', args: {} });
    expect(body.contents[2].parts[0].functionResponse).toEqual({ id: 'fc-9', name: 'f', response: { output: [1, 2] } });
  });

  it('gives Gemini 3 a documented dummy signature for a call that came from another model', () => {
    const messages: Message[] = [
      user('Go'),
      msg('assistant', { type: 'tool-call', id: 'toolu_1', name: 'f', input: { x: 1 }, providerState: { anthropic_messages: { foo: 1 } } }),
      msg('tool', { type: 'tool-result', toolCallId: 'toolu_1', name: 'f', output: 'ok' }),
    ];
    expect(encode({ model: 'gemini-3-pro-preview', messages }).contents[1].parts[0].thoughtSignature).toBe('skip_thought_signature_validator');
    expect(encode({ model: 'gemini-2.5-pro', messages }).contents[1].parts[0].thoughtSignature).toBeUndefined();
  });

  it('sends reasoning back with its signature, wraps foreign reasoning, drops redacted', () => {
    const body = encode({
      messages: [
        ...answered(
          'Q1',
          { type: 'reasoning', text: 'Thinking about Q1', signature: 'sig-r', providerState: { google_gemini: { thoughtSignature: 'sig-r' } } },
          { type: 'text', text: 'A1', providerState: { google_gemini: { thoughtSignature: 'sig-t' } } },
          { type: 'text', text: '', providerState: { google_gemini: { thoughtSignature: 'sig-empty' } } },
        ),
        user('Q2'),
        msg('assistant', anthropicReasoning('Claude thought', 'anthropic-sig'), anthropicRedactedReasoning(), text('A2')),
      ],
    });
    expect(body.contents[1].parts).toEqual([
      { text: 'Thinking about Q1', thought: true, thoughtSignature: 'sig-r' },
      { text: 'A1', thoughtSignature: 'sig-t' },
      { text: '', thoughtSignature: 'sig-empty' },
    ]);
    expect(body.contents[3].parts).toEqual([{ text: '<thinking>Claude thought</thinking>' }, { text: 'A2' }]);
  });

  it('asks for structured output with a JSON schema', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const body = encode({ messages: [user('Count')], output: { type: 'json', schema, name: 'count' } });
    expect(body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    });
  });

  it('leaves prompt caching implicit, and passes an explicit cachedContent given in extra', () => {
    const body = encode({ messages: [user('Hi')], cache: { key: 'conversation-1' }, extra: { cachedContent: 'cachedContents/abc123' } });
    expect(body.cachedContent).toBe('cachedContents/abc123');
    expect(JSON.stringify(body)).not.toContain('conversation-1');
  });

  it.each([
    ['gemini-2.5-flash', { effort: 'low' }, { includeThoughts: true, thinkingBudget: 2048 }],
    ['gemini-2.5-pro', { budgetTokens: 5000 }, { includeThoughts: true, thinkingBudget: 5000 }],
    ['gemini-2.5-flash', false, { thinkingBudget: 0 }],
    ['gemini-3-pro-preview', { effort: 'high' }, { includeThoughts: true, thinkingLevel: 'HIGH' }],
    ['gemini-3.1-flash', { effort: 'xhigh', budgetTokens: 100 }, { includeThoughts: true, thinkingLevel: 'HIGH' }],
    ['gemini-3-flash-preview', { budgetTokens: 1000 }, { includeThoughts: true, thinkingBudget: 1000 }],
    ['gemini-3-flash-preview', false, { thinkingLevel: 'MINIMAL' }],
  ] as const)('maps thinking for %s: %j', (model, thinking, expected) => {
    expect(encode({ model, messages: [user('Hi')], thinking }).generationConfig.thinkingConfig).toEqual(expected);
  });

  it.each([
    ['none', { mode: 'NONE' }],
    ['required', { mode: 'ANY' }],
    [{ type: 'tool', name: 'f' }, { mode: 'ANY', allowedFunctionNames: ['f'] }],
  ] as const)('maps toolChoice %j', (toolChoice, expected) => {
    const body = encode({ messages: [user('Hi')], tools: [{ name: 'f', inputSchema: { type: 'object' } }], toolChoice });
    expect(body.toolConfig.functionCallingConfig).toEqual(expected);
  });

  it('drops provider-executed calls of other dialects and re-sends its own code execution', () => {
    const body = encode({
      messages: answered(
        'Run it',
        ...anthropicServerSearch('ws', { q: 'x' }),
        { type: 'tool-call', id: 'code_0', name: 'code_execution', input: { language: 'PYTHON', code: 'print(1)' }, providerExecuted: true, providerState: { google_gemini: { executableCode: true } } },
        { type: 'tool-result', toolCallId: 'code_0', name: 'code_execution', output: { outcome: 'OUTCOME_OK', output: '1' }, providerExecuted: true, providerState: { google_gemini: { codeExecutionResult: true } } },
        text('Done'),
      ),
    });
    expect(body.contents[1].parts).toEqual([
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
      { text: 'Done' },
    ]);
  });

  it('sends generated images and code execution back with their signatures, draft images as thoughts', async () => {
    // What the decoder produced from a Gemini 3 image / code-execution response.
    const sse = [
      { candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: 'ZHJhZnQ=' }, thought: true }] }, index: 0 }] },
      { candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/jpeg', data: 'ZmluYWw=' }, thoughtSignature: 'sig-image' }] }, index: 0 }] },
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { executableCode: { language: 'PYTHON', code: 'print(1)' }, thoughtSignature: 'sig-code' },
                { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
              ],
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
      },
    ]
      .map((p) => `data: ${JSON.stringify(p)}\n\n`)
      .join('');
    const response = await collectResponse(decodeDialectText(googleGemini, sse));
    const body = encode({ model: 'gemini-3-pro-image-preview', messages: [user('Draw'), { ...response.message, id: 'a' }, user('Now in blue')] });
    expect(body.contents[1]).toEqual({
      role: 'model',
      parts: [
        { inlineData: { mimeType: 'image/png', data: 'ZHJhZnQ=' }, thought: true },
        { inlineData: { mimeType: 'image/jpeg', data: 'ZmluYWw=' }, thoughtSignature: 'sig-image' },
        { executableCode: { language: 'PYTHON', code: 'print(1)' }, thoughtSignature: 'sig-code' },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
      ],
    });
  });

  it('merges extra last', () => {
    const body = encode({ messages: [user('Hi')], temperature: 1, extra: { safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }] } });
    expect(body.safetySettings).toHaveLength(1);
    expect(body.generationConfig.temperature).toBe(1);
  });

  it('the schema check catches a misspelled field', () => {
    expect(validateAgainstDiscovery(GOOGLE_SCHEMA, 'GenerateContentRequest', { contents: [], generationConfig: { maxTokens: 5 } })).not.toBe('');
  });
});
