/**
 * Same-dialect round trip of provider state: a turn decoded from a wire stream and sent
 * back to the same dialect must carry the provider's opaque state byte for byte (Anthropic
 * thinking signatures, compaction content and server-tool blocks; OpenAI Responses reasoning
 * `encrypted_content` and item ids; Gemini `thoughtSignature`s; OpenRouter encrypted
 * `reasoning_details` and DeepSeek-style `reasoning_content`). The expected values are read
 * from the stream's own payloads, not from the decoder. Ollama keeps no round-trip state.
 *
 * Streams: every recording of the dialect that carries such state, plus a generated stream
 * (scripted reasoning + signature + tool call, through the wire encoders of @parlance/testing).
 */
import type { Message, ToolDefinition } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../../testing/src/script.ts';
import { encodeTurn } from '../../testing/src/wire/encode.ts';
import { getDialect } from '../src/registry.ts';
import type { DialectId } from '../src/types.ts';
import { loadFixtures } from './conformance.ts';
import { decodeAssistant, modelFor, scriptedTurns } from './handoff-thread.ts';
import { schemaErrors } from './handoff-rules.ts';

type Json = Record<string, any>;

interface Stream {
  name: string;
  bytes: Uint8Array;
  payloads: Json[];
}

/** The JSON payload of each `data:` line of a generated SSE body. */
function ssePayloads(text: string): Json[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Json);
}

function streamsOf(dialect: DialectId, keep: (payloads: Json[]) => boolean): Stream[] {
  const recorded = loadFixtures(dialect)
    .map((f) => ({ name: f.name, bytes: f.bytes, payloads: f.payloads.map((p) => p.data as Json) }))
    .filter((s) => keep(s.payloads));
  const [turn] = scriptedTurns(dialect);
  const text = encodeTurn(dialect, turn as ScriptedTurn, { model: modelFor(dialect) });
  return [...recorded, { name: 'generated', bytes: new TextEncoder().encode(text), payloads: ssePayloads(text) }];
}

/** user, the decoded assistant turn, a result for each of its local calls, a new user message; encoded back. */
async function sendBack(dialect: DialectId, stream: Stream): Promise<Json> {
  const assistant = await decodeAssistant(dialect, stream.bytes, 7);
  const calls = assistant.parts.flatMap((p) => (p.type === 'tool-call' && !p.providerExecuted ? [p] : []));
  const messages: Message[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'question' }] }, assistant];
  if (calls.length > 0) {
    messages.push({ id: 't1', role: 'tool', parts: calls.map((c) => ({ type: 'tool-result', toolCallId: c.id, name: c.name, output: { ok: true } })) });
  }
  messages.push({ id: 'u2', role: 'user', parts: [{ type: 'text', text: 'go on' }] });
  const tools: ToolDefinition[] = [...new Set(calls.map((c) => c.name))].map((name) => ({ name, inputSchema: { type: 'object' } }));
  const body = getDialect(dialect).encodeRequest({ model: modelFor(dialect), messages, tools, thinking: { effort: 'low' } }) as Json;
  expect(schemaErrors(dialect, body)).toBe('');
  return body;
}

describe('anthropic_messages: signatures, compaction and server-tool blocks go back verbatim', () => {
  /** Content blocks as the stream built them, by index. */
  function blocksOf(payloads: Json[]): Json[] {
    const blocks: Json[] = [];
    for (const p of payloads) {
      if (p.type === 'content_block_start') blocks[p.index] = { ...p.content_block };
      if (p.type !== 'content_block_delta') continue;
      const block = blocks[p.index]!;
      if (p.delta.type === 'signature_delta') block.signature = (block.signature ?? '') + p.delta.signature;
      if (p.delta.type === 'compaction_delta') block.content = (block.content ?? '') + (p.delta.content ?? '');
    }
    return blocks.filter(Boolean);
  }
  const SERVER = (type: string) => type === 'server_tool_use' || type === 'mcp_tool_use' || (type.endsWith('_tool_result') && type !== 'tool_result');
  const streams = streamsOf('anthropic_messages', (payloads) =>
    blocksOf(payloads).some((b) => ['thinking', 'redacted_thinking', 'compaction'].includes(b.type) || SERVER(b.type)),
  );

  it.each(streams.map((s) => [s.name, s] as const))('%s', async (_name, stream) => {
    const blocks = blocksOf(stream.payloads);
    const body = await sendBack('anthropic_messages', stream);
    const sent = (body.messages[1].content as Json[]).filter((b) => b.type !== 'text' && b.type !== 'tool_use');
    const expected = blocks.flatMap((b): Json[] => {
      if (b.type === 'thinking') return [{ type: 'thinking', signature: b.signature }];
      if (b.type === 'redacted_thinking') return [{ type: 'redacted_thinking', data: b.data }];
      if (b.type === 'compaction') return [{ type: 'compaction', content: b.content ?? null }];
      if (b.type === 'server_tool_use' || b.type === 'mcp_tool_use') return [{ type: b.type, id: b.id, name: b.name }];
      if (SERVER(b.type)) return [{ type: b.type, tool_use_id: b.tool_use_id, content: b.content }];
      return [];
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(sent.map((b, i) => Object.fromEntries(Object.keys(expected[i] ?? {}).map((k) => [k, b[k]])))).toEqual(expected);
  });
});

describe('openai_responses: encrypted reasoning and item ids go back verbatim', () => {
  const doneItems = (payloads: Json[]) => payloads.filter((p) => p.type === 'response.output_item.done').map((p) => p.item as Json);
  const replayable = (item: Json) => item.type === 'reasoning' && (typeof item.encrypted_content === 'string' || (item.content?.length ?? 0) > 0);
  const streams = streamsOf('openai_responses', (payloads) => doneItems(payloads).some(replayable));

  it.each(streams.map((s) => [s.name, s] as const))('%s', async (_name, stream) => {
    const items = doneItems(stream.payloads);
    const body = await sendBack('openai_responses', stream);
    const input = body.input as Json[];
    const reasoning = input.filter((i) => i.type === 'reasoning').map((i) => ({ id: i.id, encrypted_content: i.encrypted_content }));
    expect(reasoning).toEqual(items.filter(replayable).map((i) => ({ id: i.id, encrypted_content: i.encrypted_content })));
    // The items the reasoning belongs with keep their ids, so the API can pair them.
    const sentIds = new Set(input.map((i) => i.id));
    const expectedIds = items.filter((i) => i.type === 'function_call' || i.type === 'message').map((i) => i.id);
    expect(expectedIds.filter((id) => !sentIds.has(id))).toEqual([]);
    const calls = input.filter((i) => i.type === 'function_call').map((i) => i.call_id);
    expect(calls).toEqual(items.filter((i) => i.type === 'function_call').map((i) => i.call_id));
  });
});

describe('google_gemini: every thoughtSignature goes back verbatim', () => {
  const signaturesOf = (payloads: Json[]) =>
    payloads.flatMap((p) => ((p.candidates?.[0]?.content?.parts ?? []) as Json[]).flatMap((part) => (typeof part.thoughtSignature === 'string' ? [part.thoughtSignature] : [])));
  const streams = streamsOf('google_gemini', (payloads) => signaturesOf(payloads).length > 0);

  it.each(streams.map((s) => [s.name, s] as const))('%s', async (_name, stream) => {
    const body = await sendBack('google_gemini', stream);
    const model = (body.contents as Json[]).filter((c) => c.role === 'model');
    expect(model).toHaveLength(1);
    // Google's documented placeholder for a Gemini 3 call without a signature is not provider state.
    const sent = (model[0]!.parts as Json[]).flatMap((p) =>
      typeof p.thoughtSignature === 'string' && p.thoughtSignature !== 'skip_thought_signature_validator' ? [p.thoughtSignature] : [],
    );
    expect(sent).toEqual(signaturesOf(stream.payloads));
  });
});

describe('openai_completions: reasoning_content and encrypted reasoning_details go back verbatim', () => {
  const deltas = (payloads: Json[]) => payloads.map((p) => p.choices?.[0]?.delta).filter(Boolean) as Json[];
  const encryptedOf = (payloads: Json[]) =>
    deltas(payloads).flatMap((d) => ((d.reasoning_details ?? []) as Json[]).filter((r) => r.type === 'reasoning.encrypted').map((r) => r.data));
  const reasoningContentOf = (payloads: Json[]) => deltas(payloads).map((d) => (typeof d.reasoning_content === 'string' ? d.reasoning_content : '')).join('');
  const streams = streamsOf('openai_completions', (payloads) => encryptedOf(payloads).length > 0 || reasoningContentOf(payloads) !== '');

  it.each(streams.map((s) => [s.name, s] as const))('%s', async (_name, stream) => {
    const body = await sendBack('openai_completions', stream);
    const assistant = (body.messages as Json[]).find((m) => m.role === 'assistant')!;
    const encrypted = ((assistant.reasoning_details ?? []) as Json[]).filter((r) => r.type === 'reasoning.encrypted').map((r) => r.data);
    expect(encrypted).toEqual(encryptedOf(stream.payloads));
    const content = reasoningContentOf(stream.payloads);
    if (content !== '') expect(assistant.reasoning_content).toBe(content);
    else expect(assistant.reasoning_content).toBeUndefined();
  });
});
