/**
 * Round trips through real recordings: what the decoder keeps on the parts is what the
 * encoder needs to send the turn back (thinking signatures verbatim, tool ids paired,
 * server tool blocks rebuilt), and the resulting body passes the published schema.
 */
import { collectResponse, type Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { decodeChunks, loadFixtures } from '../../test/conformance.ts';
import { validateAgainst } from '../../test/schemas.ts';
import { anthropicMessages } from './index.ts';

const fixtures = loadFixtures('anthropic_messages');

async function assistantFrom(name: string): Promise<Message> {
  const fixture = fixtures.find((f) => f.name === name);
  if (!fixture) throw new Error(`missing recording ${name}`);
  const response = await collectResponse(await decodeChunks(anthropicMessages, [fixture.bytes]));
  expect(response.error).toBeUndefined();
  return response.message;
}

function signaturesIn(name: string): string {
  const fixture = fixtures.find((f) => f.name === name)!;
  return fixture.payloads
    .filter((p) => p.data.delta?.type === 'signature_delta')
    .map((p) => p.data.delta.signature)
    .join('');
}

const user = (id: string, text: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });

function encodeValid(messages: Message[], extra: Record<string, unknown> = {}) {
  const body = anthropicMessages.encodeRequest({ model: 'claude-sonnet-4-5', messages, ...extra }) as Record<string, any>;
  expect(validateAgainst('anthropic__lingua__openapi.yml', '/components/schemas/CreateMessageParams', body)).toBe('');
  return body;
}

describe('anthropic_messages round trips', () => {
  it.each(['vercel-ai__anthropic__anthropic-clear-thinking.1.chunks.txt', 'omni__anthropic_thinking.sse'])(
    'sends the thinking block of %s back with its exact signature',
    async (name) => {
      const assistant = await assistantFrom(name);
      const reasoning = assistant.parts.find((p) => p.type === 'reasoning');
      expect(reasoning?.type === 'reasoning' && reasoning.signature).toBe(signaturesIn(name));
      const body = encodeValid([user('u1', 'question'), assistant, user('u2', 'and then?')], { thinking: { effort: 'low' } });
      const content = body.messages[1].content;
      expect(content[0]).toEqual({
        type: 'thinking',
        thinking: reasoning?.type === 'reasoning' ? reasoning.text : '',
        signature: signaturesIn(name),
      });
      expect(content.slice(1).map((b: any) => b.type)).toEqual(['text']);
    },
  );

  it('pairs a recorded tool call with its local result', async () => {
    const assistant = await assistantFrom('omni__anthropic_tool_use.sse');
    const call = assistant.parts.find((p) => p.type === 'tool-call');
    expect(call).toMatchObject({ id: 'toolu_01QSPoCjcHCMEA29C5WTE79P', name: 'get_weather', input: { location: 'London, UK' } });
    const result: Message = {
      id: 't1',
      role: 'tool',
      parts: [{ type: 'tool-result', toolCallId: 'toolu_01QSPoCjcHCMEA29C5WTE79P', name: 'get_weather', output: { celsius: 12 } }],
    };
    const body = encodeValid([user('u1', 'Weather in London?'), assistant, result], {
      tools: [{ name: 'get_weather', inputSchema: { type: 'object', properties: { location: { type: 'string' } } } }],
    });
    expect(body.messages[1].content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_01QSPoCjcHCMEA29C5WTE79P',
      name: 'get_weather',
      input: { location: 'London, UK' },
    });
    expect(body.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01QSPoCjcHCMEA29C5WTE79P', content: '{"celsius":12}' }],
    });
  });

  it.each([
    'vercel-ai__anthropic__anthropic-web-search-tool.1.chunks.txt',
    'vercel-ai__anthropic__anthropic-web-fetch-tool.1.chunks.txt',
    'vercel-ai__anthropic__anthropic-code-execution-20250825.1.chunks.txt',
  ])('rebuilds the server tool blocks of %s as the API sent them', async (name) => {
    const assistant = await assistantFrom(name);
    const body = encodeValid([user('u1', 'go'), assistant, user('u2', 'thanks')]);
    const fixture = fixtures.find((f) => f.name === name)!;
    const recorded = fixture.payloads
      .filter((p) => p.data.type === 'content_block_start' && p.data.content_block.type !== 'text')
      .map((p) => p.data.content_block.type);
    const sent = body.messages[1].content.filter((b: any) => b.type !== 'text').map((b: any) => b.type);
    expect(sent).toEqual(recorded);
    for (const block of body.messages[1].content.filter((b: any) => b.type.endsWith('_tool_result'))) {
      const original = fixture.payloads.find((p) => p.data.content_block?.tool_use_id === block.tool_use_id)!.data.content_block;
      expect(block.content).toEqual(original.content);
    }
  });
});
