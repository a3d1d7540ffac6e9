// Content tool outputs (text and files, e.g. an MCP screenshot) in every dialect: each body
// passes the provider's published request schema and the pairing rules, every file's bytes
// appear only as media (never inside text), and each dialect puts them where its API takes them.
import { toolContentOf, type Message, type ModelRequest, type ToolContentOutput } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { ruleViolations, schemaErrors } from '../../test/handoff-rules.ts';
import { msg, user } from '../../test/requests.ts';
import { getDialect } from '../registry.ts';
import type { DialectId } from '../types.ts';

type Json = Record<string, any>;

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const PDF = 'JVBERi0xLjQK';
const WAV = 'UklGRiQAAABXQVZFZm10IA==';
const ZIP = 'UEsDBBQAAAAIAA==';
const TXT = btoa('hello world');

const screenshot: ToolContentOutput = {
  type: 'content',
  content: [
    { type: 'text', text: 'The page' },
    { type: 'file', mediaType: 'image/png', data: PNG, filename: 'shot.png' },
    { type: 'file', mediaType: 'application/pdf', data: PDF },
    { type: 'file', mediaType: 'text/plain', data: TXT },
    { type: 'file', mediaType: 'audio/wav', data: WAV },
    { type: 'file', mediaType: 'application/zip', data: ZIP },
  ],
};

/** A call of a tool that returns content and one that returns text, answered in one tool message, then a question. */
function thread(output: unknown = screenshot): Message[] {
  return [
    user('Look at the page'),
    msg('assistant', { type: 'tool-call', id: 'call_1', name: 'screenshot', input: {} }, { type: 'tool-call', id: 'call_2', name: 'weather', input: { city: 'Oslo' } }),
    msg(
      'tool',
      { type: 'tool-result', toolCallId: 'call_1', name: 'screenshot', output },
      { type: 'tool-result', toolCallId: 'call_2', name: 'weather', output: '21 °C' },
    ),
    user('What do you see?'),
  ];
}

const TARGETS: { name: string; dialect: DialectId; model: string }[] = [
  { name: 'Anthropic Messages', dialect: 'anthropic_messages', model: 'claude-sonnet-4-5' },
  { name: 'Gemini 3', dialect: 'google_gemini', model: 'gemini-3-pro-preview' },
  { name: 'Gemini 2.5', dialect: 'google_gemini', model: 'gemini-2.5-flash' },
  { name: 'OpenAI Responses', dialect: 'openai_responses', model: 'gpt-4.1' },
  { name: 'Chat Completions', dialect: 'openai_completions', model: 'gpt-4.1' },
  { name: 'Ollama', dialect: 'ollama_chat', model: 'qwen3-vl:8b' },
];

function encode(dialect: DialectId, model: string, messages: Message[]): Json {
  const tools = ['screenshot', 'weather'].map((name) => ({ name, description: name, inputSchema: { type: 'object', properties: {} } }));
  const request: ModelRequest = { model, messages, tools };
  const body = getDialect(dialect).encodeRequest(request) as Json;
  expect(schemaErrors(dialect, body)).toBe('');
  expect(ruleViolations(dialect, body)).toEqual([]);
  return body;
}

/** Every string in the body that holds `data`, with its path. */
function holders(node: unknown, data: string, path = ''): { path: string; value: string }[] {
  if (typeof node === 'string') return node.includes(data) ? [{ path, value: node }] : [];
  if (Array.isArray(node)) return node.flatMap((item, i) => holders(item, data, `${path}/${i}`));
  if (node && typeof node === 'object') return Object.entries(node).flatMap(([key, value]) => holders(value, data, `${path}/${key}`));
  return [];
}

function holdsValue(node: unknown, value: unknown): boolean {
  if (JSON.stringify(node) === JSON.stringify(value)) return true;
  if (node && typeof node === 'object') return Object.values(node).some((child) => holdsValue(child, value));
  return false;
}

describe.each(TARGETS)('a content tool output in $name', ({ dialect, model }) => {
  const body = encode(dialect, model, thread());

  it.each([
    ['image/png', PNG],
    ['application/pdf', PDF],
    ['audio/wav', WAV],
  ])('sends %s only as media, never inside text', (mediaType, data) => {
    for (const { path, value } of holders(body, data)) {
      // The data itself, or a data URL of it, in a media field: never base64 inside JSON text or prose.
      expect([data, `data:${mediaType};base64,${data}`], path).toContain(value);
      expect(path, path).not.toMatch(/\/(text|content|output)$/);
    }
  });

  it('names a file no provider takes, without its bytes', () => {
    expect(holders(body, ZIP)).toEqual([]);
    expect(holders(body, '[file application/zip: not shown').length).toBe(1);
  });

  it('sends text files as text', () => {
    expect(holders(body, TXT)).toEqual([]);
    expect(holders(body, 'hello world').length).toBeGreaterThan(0);
  });

  it('keeps plain outputs as they were', () => {
    expect(holders(body, '21 °C').length).toBe(1);
  });

  it('sends a value that only looks like content as the value it is', () => {
    const lookalike = { type: 'content', content: [{ type: 'image', data: 'x' }] };
    const encoded = encode(dialect, model, thread(lookalike));
    // JSON text, or (Gemini) the object itself as the function response.
    expect(holders(encoded, JSON.stringify(lookalike)).length + (holdsValue(encoded, lookalike) ? 1 : 0)).toBe(1);
  });

  it('names a file whose data is not base64 instead of sending it', () => {
    const broken: ToolContentOutput = { type: 'content', content: [{ type: 'file', mediaType: 'image/png', data: 'not base64!' }] };
    const encoded = encode(dialect, model, thread(broken));
    expect(holders(encoded, 'not base64!')).toEqual([]);
    expect(holders(encoded, 'its data is not base64').length).toBe(1);
  });
});

describe('where each dialect puts the files', () => {
  const bodyOf = (name: string) => {
    const target = TARGETS.find((t) => t.name === name)!;
    return encode(target.dialect, target.model, thread());
  };

  it('Anthropic: image and document blocks inside the tool_result', () => {
    const [result, plain] = bodyOf('Anthropic Messages').messages[2].content;
    expect(result.type).toBe('tool_result');
    expect(result.content).toEqual([
      { type: 'text', text: 'The page' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello world' } },
      { type: 'text', text: expect.stringMatching(/^\[file audio\/wav: not shown/) },
      { type: 'text', text: expect.stringMatching(/^\[file application\/zip: not shown/) },
    ]);
    expect(plain).toMatchObject({ type: 'tool_result', content: '21 °C' });
  });

  it('Gemini 3: images and PDFs as functionResponse parts, audio after the responses', () => {
    const [response, weather, intro, audio, ...rest] = bodyOf('Gemini 3').contents[2].parts;
    expect(response.functionResponse.parts).toEqual([{ inlineData: { mimeType: 'image/png', data: PNG } }, { inlineData: { mimeType: 'application/pdf', data: PDF } }]);
    expect(response.functionResponse.response.output).toContain('The page\n\n[file shot.png (image/png): attached]');
    expect(weather.functionResponse.response).toEqual({ output: '21 °C' });
    expect(intro).toEqual({ text: 'Files returned by the screenshot tool:' });
    expect(audio).toEqual({ inlineData: { mimeType: 'audio/wav', data: WAV } });
    // The next user message joins the same user turn, after the files.
    expect(rest).toEqual([{ text: 'What do you see?' }]);
  });

  it('Gemini 2.5: no parts in the function response; every file after the responses', () => {
    const [response, weather, intro, ...after] = bodyOf('Gemini 2.5').contents[2].parts;
    expect(response.functionResponse.parts).toBeUndefined();
    expect(weather.functionResponse.name).toBe('weather');
    expect(intro.text).toBe('Files returned by the screenshot tool:');
    expect(after.map((p: Json) => p.inlineData?.mimeType ?? p.text)).toEqual(['image/png', 'application/pdf', 'audio/wav', 'What do you see?']);
  });

  it('OpenAI Responses: input_image and input_file in the function_call_output', () => {
    const output = bodyOf('OpenAI Responses').input.find((i: Json) => i.type === 'function_call_output' && i.call_id === 'call_1').output;
    expect(output.map((o: Json) => o.type)).toEqual(['input_text', 'input_image', 'input_file', 'input_text', 'input_text', 'input_text']);
    expect(output[1]).toEqual({ type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' });
    expect(output[2]).toEqual({ type: 'input_file', filename: 'file.pdf', file_data: `data:application/pdf;base64,${PDF}` });
    expect(output[3].text).toBe('hello world');
  });

  it('Chat Completions: text in the tool message, the files in a user message after the tool messages', () => {
    const messages = bodyOf('Chat Completions').messages;
    expect(messages.map((m: Json) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user', 'user']);
    expect(messages[2].content).toContain('The page\n\n[file shot.png (image/png): attached]');
    expect(messages[4].content).toEqual([
      { type: 'text', text: 'Files returned by the screenshot tool:' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'file', file: { filename: 'file.pdf', file_data: `data:application/pdf;base64,${PDF}` } },
      { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } },
    ]);
    expect(messages[5].content).toBe('What do you see?');
  });

  it('Ollama: images on the tool message', () => {
    const tool = bodyOf('Ollama').messages.find((m: Json) => m.role === 'tool' && m.tool_name === 'screenshot');
    expect(tool.images).toEqual([PNG]);
    expect(tool.content).toContain('[file shot.png (image/png): attached]');
    expect(tool.content).toContain('[file application/pdf: not shown');
  });
});


// A gateway reads a request whose tool results hold media: the files stay media on the way to any upstream.
describe.each([
  { name: 'Anthropic Messages', dialect: 'anthropic_messages', model: 'claude-sonnet-4-5' },
  { name: 'Gemini 3', dialect: 'google_gemini', model: 'gemini-3-pro-preview' },
  { name: 'OpenAI Responses', dialect: 'openai_responses', model: 'gpt-4.1' },
] as const)('a request with media in a tool result, read by a gateway from $name', ({ dialect, model }) => {
  // Files every dialect takes somewhere (audio in a user turn, where Gemini puts it, is not every provider's).
  const media: ToolContentOutput = { type: 'content', content: screenshot.content.filter((p) => p.type === 'text' || ['image/png', 'application/pdf'].includes(p.mediaType)) };
  const body = encode(dialect, model, thread(media));
  const decoded = getDialect(dialect).decodeRequest(JSON.parse(JSON.stringify(body)) as Json, { model, stream: true }).request;
  const output = decoded.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool-result' && p.name === 'screenshot');

  it('is a content output holding the image and the PDF', () => {
    const content = toolContentOf(output?.type === 'tool-result' ? output.output : undefined);
    expect(content?.content).toContainEqual(expect.objectContaining({ type: 'file', mediaType: 'image/png', data: PNG }));
    expect(content?.content).toContainEqual(expect.objectContaining({ type: 'file', mediaType: 'application/pdf', data: PDF }));
  });

  it.each(TARGETS.map((t) => [t.name, t] as const))('goes on to %s with the image as media', (_, target) => {
    const upstream = encode(target.dialect, target.model, decoded.messages);
    for (const { path, value } of holders(upstream, PNG)) {
      expect([PNG, `data:image/png;base64,${PNG}`], path).toContain(value);
    }
    expect(holders(upstream, PNG).length).toBe(1);
  });
});
