// Media from a real MCP server we did not write (`@modelcontextprotocol/server-everything`, a
// child process over stdio) reaches the provider as the dialect's own media content: the engine
// runs the tool the model called, and the next request to the (mock) provider carries the image
// where the API takes an image in a tool result, never as base64 text.
import { createRequire } from 'node:module';
import { createEngine, defineProvider } from '@parlance/engine';
import { mockProviderServer, type MockProviderHandler } from '@parlance/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpTools, type McpToolSet } from './mcp-tools.ts';
import { stdioServer } from './stdio.ts';

type Json = Record<string, any>;
type DialectId = Parameters<typeof mockProviderServer>[0]['dialect'];

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let set: McpToolSet;
let tinyImage = '';
beforeAll(async () => {
  set = await mcpTools(stdioServer({ command: process.execPath, args: [everything, 'stdio'], stderr: 'pipe' }), { onWarning: () => {} });
  // The server's own image, read straight from the server: what the provider must receive.
  const direct = await set.client.callTool({ name: 'get-tiny-image', arguments: {} });
  tinyImage = (direct.content as Json[]).find((block) => block.type === 'image')!.data as string;
}, 30_000);
afterAll(() => set?.close());

/** A run whose model (a mock provider speaking `dialect`) calls one tool of server-everything, then answers. */
async function run(dialect: DialectId, id: string, call: { name: string; input: Json }): Promise<{ upstream: MockProviderHandler; halt: string; error?: unknown }> {
  const upstream = mockProviderServer({
    dialect,
    script: [{ text: 'Let me look.', toolCalls: [{ id: 'call_1', ...call }] }, { text: 'It is the MCP logo.' }],
  });
  const provider = defineProvider(
    { id: 'mock', baseURL: 'https://llm.example.test/v1', auth: 'none', dialect, models: { [id]: { contextWindow: 32_000, maxOutputTokens: 1_024, input: ['text', 'image'] } } },
    { fetch: async (input, init) => upstream(new Request(input, init)), retry: false },
  );
  const result = await createEngine({ model: provider.model(id), tools: [set] }).chat({ prompt: 'Show me' });
  return { upstream, halt: result.haltReason, error: result.error };
}

/** Where each dialect must put the image of the tool result in the second request. */
const CASES: { name: string; dialect: DialectId; model: string; image(body: Json): unknown }[] = [
  {
    name: 'Anthropic tool_result image block',
    dialect: 'anthropic_messages',
    model: 'claude-sonnet-4-5',
    image: (body) => body.messages.at(-1).content.find((b: Json) => b.type === 'tool_result').content.find((b: Json) => b.type === 'image')?.source,
  },
  {
    name: 'Gemini 3 functionResponse part',
    dialect: 'google_gemini',
    model: 'gemini-3-pro-preview',
    image: (body) => body.contents.at(-1).parts.find((p: Json) => p.functionResponse).functionResponse.parts?.[0]?.inlineData,
  },
  {
    name: 'OpenAI Responses input_image in the function_call_output',
    dialect: 'openai_responses',
    model: 'gpt-4.1',
    image: (body) => body.input.find((i: Json) => i.type === 'function_call_output').output.find?.((o: Json) => o.type === 'input_image')?.image_url,
  },
  {
    name: 'Chat Completions image_url in the user message after the tool message',
    dialect: 'openai_completions',
    model: 'gpt-4.1',
    image: (body) => body.messages.at(-1).role === 'user' && body.messages.at(-2).role === 'tool' && body.messages.at(-1).content.find((p: Json) => p.type === 'image_url')?.image_url.url,
  },
  {
    name: 'Ollama images on the tool message',
    dialect: 'ollama_chat',
    model: 'qwen3-vl:8b',
    image: (body) => body.messages.find((m: Json) => m.role === 'tool')?.images?.[0],
  },
];

describe.each(CASES)('an image from server-everything reaches the model: $name', ({ dialect, model: id, image }) => {
  it('is in the encoded request as media, and nowhere as text', async () => {
    const { upstream, halt, error } = await run(dialect, id, { name: 'get-tiny-image', input: {} });
    expect([halt, error]).toEqual(['completed', undefined]);
    expect(upstream.requests).toHaveLength(2);
    const body = upstream.requests[1]!.body as Json;
    const sent = image(body);
    expect([tinyImage, `data:image/png;base64,${tinyImage}`, { type: 'base64', media_type: 'image/png', data: tinyImage }, { mimeType: 'image/png', data: tinyImage }]).toContainEqual(sent);
    // The server's text around the image went too, and the image bytes appear exactly once.
    const wire = JSON.stringify(body);
    expect(wire).toContain("Here's the image you requested:");
    expect(wire.split(tinyImage.slice(0, 200)).length - 1).toBe(1);
  });
});

it('an embedded binary resource from server-everything reaches Anthropic as a document block, not base64', async () => {
  const { upstream } = await run('anthropic_messages', 'claude-sonnet-4-5', { name: 'get-resource-reference', input: { resourceType: 'Blob', resourceId: 2 } });
  const result = (upstream.requests[1]!.body as Json).messages.at(-1).content.find((b: Json) => b.type === 'tool_result');
  // The server sends the resource as a base64 text/plain blob: Anthropic takes it as a plain-text document.
  expect(result.content).toContainEqual({
    type: 'document',
    source: { type: 'text', media_type: 'text/plain', data: expect.stringMatching(/^Resource 2: This is a base64 blob created at /) },
    title: '2',
  });
});
