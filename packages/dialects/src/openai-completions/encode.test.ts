/**
 * Request encoding: every body is checked against OpenAI's published
 * `CreateChatCompletionRequest` schema (test/api-schemas, see SOURCES.md), and
 * the fields a user relies on are asserted by value.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectResponse, type Message, type ModelRequest, ParlanceError } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { anthropicReasoning, anthropicRedactedReasoning, anthropicServerSearch, type Body, checkedEncoder, files, msg, plainTurn, text, thrownBy, weatherCalls } from '../../test/requests.ts';
import { OPENAI_SCHEMA, validateAgainst } from '../../test/schemas.ts';
import { decodeDialectText } from '../decode-stream.ts';
import { openaiCompletions, toolCallWireId } from './index.ts';

const REQUEST = '#/components/schemas/CreateChatCompletionRequest';

const encode = checkedEncoder(openaiCompletions, 'gpt-test', (body) => validateAgainst(OPENAI_SCHEMA, REQUEST, body));

const DIR = join(import.meta.dirname, '../../test/fixtures/openai_completions');
async function decodedMessage(name: string): Promise<Message> {
  const response = await collectResponse(decodeDialectText(openaiCompletions, readFileSync(join(DIR, name), 'utf8')));
  return response.message;
}

/** The next request after a recorded turn that called `get_weather`: the question, that turn, the tool's answer. */
async function afterWeatherCall(recording: string, toolCallId: string, output: string): Promise<Body> {
  const assistant = await decodedMessage(recording);
  return encode({ messages: [msg('user', text('Weather in London?')), assistant, msg('tool', { type: 'tool-result', toolCallId, name: 'get_weather', output })] });
}

describe('the dialect', () => {
  it('posts to /chat/completions', () => {
    expect(openaiCompletions.path('gpt-test')).toBe('/chat/completions');
    expect(openaiCompletions.framing).toBe('sse');
  });

  it('rejects a body the schema forbids (the validator is live)', () => {
    expect(validateAgainst(OPENAI_SCHEMA, REQUEST, { model: 'm', messages: [{ role: 'user' }] })).not.toBe('');
  });
});

describe('encodeRequest', () => {
  it('encodes a plain turn with sampling settings, always streaming with usage', () => {
    const body = encode(plainTurn());
    expect(body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'Be brief.\n\nAnswer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      max_completion_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('encodes images by data and by URL, audio and PDF files', () => {
    const body = encode({
      messages: [
        msg('user', text('What is in these?'), files.pngData, files.jpegUrl, { type: 'file', mediaType: 'audio/wav', data: 'UklGRg==' }, files.pdfData),
      ],
    });
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'What is in these?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      { type: 'file', file: { filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
    ]);
  });

  it('refuses a non-image file by URL with a typed error naming the part', () => {
    const request: ModelRequest = {
      model: 'm',
      messages: [msg('user', text('Read'), files.pdfUrl)],
    };
    expect(() => openaiCompletions.encodeRequest(request)).toThrow(ParlanceError);
    const error = thrownBy(() => openaiCompletions.encodeRequest(request));
    expect(ParlanceError.isInstance(error) && error.code).toBe('invalid_request');
    expect(ParlanceError.isInstance(error) && error.path).toEqual(['messages', 0, 'parts', 1]);
  });

  it('encodes a two-step tool loop: definitions, choice, calls and results', () => {
    const body = encode({
      messages: [
        ...weatherCalls('call_1', 'call_2'),
        msg(
          'tool',
          { type: 'tool-result', toolCallId: 'call_1', name: 'get_weather', output: { temp: 18 } },
          { type: 'tool-result', toolCallId: 'call_2', name: 'get_weather', output: 'unavailable', isError: true },
        ),
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
          strict: true,
        },
      ],
      toolChoice: { type: 'tool', name: 'get_weather' },
    });
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
          strict: true,
        },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp":18}' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: unavailable' },
    ]);
  });

  it.each(['auto', 'none', 'required'] as const)('passes toolChoice %s through', (choice) => {
    const tools = [{ name: 'f', inputSchema: { type: 'object' } }];
    expect(encode({ messages: [msg('user', text('x'))], tools, toolChoice: choice }).tool_choice).toBe(choice);
  });

  it('round-trips a decoded tool call (repeated-id recording) into the next request', async () => {
    const body = await afterWeatherCall('omni__opencode_kimi-k2-5_tool_use.sse', 'functions.get_weather:0', 'rain');
    expect(body.messages[1].tool_calls).toEqual([
      { id: 'functions.get_weather:0', type: 'function', function: { name: 'get_weather', arguments: '{"location":"London"}' } },
    ]);
    expect(body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'functions.get_weather:0', content: 'rain' });
  });

  it('sends reasoning_content back where the provider sent it (DeepSeek-style, Z.ai recording)', async () => {
    const assistant = await decodedMessage('omni__zai_thinking.sse');
    const reasoning = assistant.parts.find((p) => p.type === 'reasoning');
    const answer = assistant.parts.find((p) => p.type === 'text');
    const body = encode({ messages: [msg('user', text('Count the r in strawberry')), assistant, msg('user', text('Sure?'))] });
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: answer?.type === 'text' && answer.text,
      reasoning_content: reasoning?.type === 'reasoning' && reasoning.text,
    });
  });

  it('sends OpenRouter reasoning_details (encrypted blob included) back verbatim, not the duplicate text', async () => {
    const body = await afterWeatherCall('omni__openrouter_tool_use.sse', 'call_WlouT00TbAaKyTeJqE3Bsryi', 'sunny');
    const sent = body.messages[1];
    expect(sent.reasoning_content).toBeUndefined();
    expect(sent.content).toBeNull();
    expect(sent.reasoning_details.map((d: any) => d.type)).toEqual(['reasoning.summary', 'reasoning.encrypted']);
    expect(sent.reasoning_details[1].data).toMatch(/^gAAAA/);
    expect(sent.tool_calls[0].id).toBe('call_WlouT00TbAaKyTeJqE3Bsryi');
  });

  it('does not send back reasoning that arrived as `reasoning` (Groq recording)', async () => {
    const assistant = await decodedMessage('omni__groq_thinking.sse');
    const body = encode({ messages: [msg('user', text('Count')), assistant, msg('user', text('Again'))] });
    expect(Object.keys(body.messages[1]).sort()).toEqual(['content', 'role']);
  });

  it("hands off another dialect's reasoning as <thinking> text and drops redacted or empty ones", () => {
    const body = encode({
      messages: [
        msg('user', text('Q')),
        msg('assistant', anthropicReasoning('Think step by step.'), anthropicRedactedReasoning(), text('A')),
      ],
    });
    expect(body.messages[1]).toEqual({ role: 'assistant', content: '<thinking>\nThink step by step.\n</thinking>\n\nA' });
  });

  it("drops another provider's server tools and orphan results, and shortens long call ids consistently", () => {
    const longId = 'toolu_01ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef';
    const body = encode({
      messages: [
        msg('user', text('Search and compute')),
        msg('assistant', ...anthropicServerSearch('srvtoolu_1'), { type: 'tool-call', id: longId, name: 'calc', input: { expr: '1+1' } }),
        msg(
          'tool',
          { type: 'tool-result', toolCallId: longId, name: 'calc', output: 2 },
          { type: 'tool-result', toolCallId: 'never_called', name: 'calc', output: 3 },
        ),
      ],
    });
    const wireId = toolCallWireId(longId);
    expect(wireId.length).toBeLessThanOrEqual(40);
    expect(wireId).not.toBe(toolCallWireId(`${longId}x`));
    expect(body.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: wireId, type: 'function', function: { name: 'calc', arguments: '{"expr":"1+1"}' } }] },
      { role: 'tool', tool_call_id: wireId, content: '2' },
    ]);
  });

  it('sends a refusal back as `refusal`', async () => {
    const body = encode({
      messages: [msg('user', text('Q')), msg('assistant', { type: 'text', text: 'I cannot.', providerState: { openai_completions: { refusal: true } } })],
    });
    expect(body.messages[1]).toEqual({ role: 'assistant', content: null, refusal: 'I cannot.' });
  });

  it('encodes structured output as a strict json_schema response format', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    expect(encode({ messages: [msg('user', text('x'))], output: { type: 'json', schema, name: 'the answer!', description: 'An answer' } }).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'the_answer_', description: 'An answer', schema, strict: true },
    });
    expect(encode({ messages: [msg('user', text('x'))], output: { type: 'json', schema, strict: false } }).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema, strict: false },
    });
  });

  it('encodes the prompt-cache key and sends no breakpoints', () => {
    const body = encode({ system: 'Long prompt', messages: [msg('user', text('x'))], cache: { key: 'tenant-42', ttl: '1h' } });
    expect(body.prompt_cache_key).toBe('tenant-42');
    expect(JSON.stringify(body)).not.toMatch(/prompt_cache_breakpoint|prompt_cache_retention/);
  });

  it.each([
    [false, 'none'],
    [{ effort: 'minimal' }, 'minimal'],
    [{ effort: 'high' }, 'high'],
    [{ effort: 'xhigh' }, 'xhigh'],
    [{ budgetTokens: 0 }, 'none'],
    [{ budgetTokens: 1024 }, 'low'],
    [{ budgetTokens: 8192 }, 'medium'],
    [{ budgetTokens: 32000 }, 'high'],
    [{ effort: 'low', budgetTokens: 32000 }, 'low'],
  ] as const)('maps thinking %j to reasoning_effort %s', (thinking, effort) => {
    expect(encode({ messages: [msg('user', text('x'))], thinking }).reasoning_effort).toBe(effort);
  });

  it('leaves reasoning_effort to the provider when thinking names neither effort nor budget', () => {
    expect(encode({ messages: [msg('user', text('x'))], thinking: {} })).not.toHaveProperty('reasoning_effort');
  });

  it('merges extra last, verbatim', () => {
    const body = encode({ messages: [msg('user', text('x'))], maxOutputTokens: 10, extra: { max_completion_tokens: 20, seed: 7, thinking: { type: 'enabled' } } });
    expect(body.max_completion_tokens).toBe(20);
    expect(body.seed).toBe(7);
    expect(body.thinking).toEqual({ type: 'enabled' });
  });
});
