/**
 * `textDeltas: false` (a gateway relaying the provider's bytes): text and thinking deltas of an open block are
 * skipped unparsed, and nothing else changes. Checked on every recorded Anthropic stream and on the forms a
 * skip must not take for a text delta.
 */
import type { Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { loadFixtures, randomCuts, seededRandom, streamOf } from '../../test/conformance.ts';
import { decodeDialectStream, decodeDialectText } from '../decode-stream.ts';
import { anthropicMessages } from './index.ts';

const isContentDelta = (event: Event) => event.type === 'text-delta' || event.type === 'reasoning-delta';
const skimmed = (body: string | Uint8Array) => decodeDialectText(anthropicMessages, body, { textDeltas: false });
const decoded = (body: string | Uint8Array) => decodeDialectText(anthropicMessages, body);

function sse(...payloads: (object | string)[]): string {
  return payloads.map((p) => (typeof p === 'string' ? `event: content_block_delta\ndata: ${p}\n\n` : `event: ${(p as { type: string }).type}\ndata: ${JSON.stringify(p)}\n\n`)).join('');
}
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 10, output_tokens: 1 } } };
const textStart = (index: number) => ({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
const toolStart = (index: number) => ({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: 'toolu_1', name: 'look', input: {} } });
const stop = (index: number) => ({ type: 'content_block_stop', index });
const end = [{ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }, { type: 'message_stop' }];

describe('Anthropic decoder, textDeltas: false', () => {
  const fixtures = loadFixtures('anthropic_messages');

  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s: every other event as decoded, text and thinking deltas left out', async (_name, fixture) => {
    const whole = decoded(fixture.bytes);
    const skipped = skimmed(fixture.bytes);
    expect(skipped).toEqual(whole.filter((event) => !isContentDelta(event)));
    // The same at any cut of the body (a delta split across reads is still recognized, or decoded).
    const random = seededRandom(fixture.bytes.length);
    for (let i = 0; i < 5; i++) {
      const events: Event[] = [];
      for await (const event of decodeDialectStream(anthropicMessages, streamOf(randomCuts(fixture.bytes, random)), { textDeltas: false })) events.push(event);
      expect(events).toEqual(skipped);
    }
  });

  it('skips the deltas of every recording that has text or thinking', () => {
    const withDeltas = fixtures.filter((fixture) => decoded(fixture.bytes).some(isContentDelta));
    expect(withDeltas.length).toBeGreaterThanOrEqual(10);
    for (const fixture of withDeltas) expect(skimmed(fixture.bytes).some(isContentDelta), fixture.name).toBe(false);
  });

  // Each is not the form the API writes for a text delta of an open text block, so it is decoded as always.
  it.each([
    ['spaces after the colons', `{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a"}}`],
    ['keys in another order', `{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}`],
    ['the delta before its type', `{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}`],
    ['a thinking delta in a text block', `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a"}}`],
    ['a block never started', `{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"a"}}`],
    ['an index with a leading zero', `{"type":"content_block_delta","index":00,"delta":{"type":"text_delta","text":"a"}}`],
    ['a cut-off delta', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a`],
    ['a delta with more fields after it', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"extra":1}`],
  ])('%s: decoded, not skipped', (_name, delta) => {
    const body = sse(start, textStart(0), delta, stop(0), ...end);
    expect(skimmed(body)).toEqual(decoded(body));
  });

  it('never skips a tool call input, even one that holds a text delta', () => {
    const inner = JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"q":"{\\"type\\":\\"text_delta\\",\\"text\\":\\"x\\"}"}' } });
    const body = sse(start, toolStart(0), inner, stop(0), ...end);
    const events = skimmed(body);
    expect(events).toEqual(decoded(body));
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({ input: { q: '{"type":"text_delta","text":"x"}' } });
  });
});
