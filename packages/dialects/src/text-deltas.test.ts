/**
 * `textDeltas: false` (a gateway relaying the provider's bytes): the deltas a decoder can tell unparsed (Anthropic's
 * text and thinking deltas of an open block, Ollama's lines that only add text) are skipped, and nothing else
 * changes. Checked on every recorded stream of both APIs, at random cuts, and on the forms a skip must not take.
 */
import type { Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { loadFixtures, randomCuts, seededRandom, streamOf } from '../test/conformance.ts';
import { anthropicMessages } from './anthropic-messages/index.ts';
import { decodeDialectStream, decodeDialectText } from './decode-stream.ts';
import { ollamaChat } from './ollama-chat/index.ts';
import type { Dialect } from './types.ts';

const isContentDelta = (event: Event) => event.type === 'text-delta' || event.type === 'reasoning-delta';
const skimmed = (body: string | Uint8Array, dialect: Dialect = anthropicMessages) => decodeDialectText(dialect, body, { textDeltas: false });
const decoded = (body: string | Uint8Array, dialect: Dialect = anthropicMessages) => decodeDialectText(dialect, body);

describe.each([
  ['anthropic_messages', anthropicMessages],
  ['ollama_chat', ollamaChat],
] as const)('%s recordings, textDeltas: false', (id, dialect) => {
  const fixtures = loadFixtures(id);

  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s: every other event as decoded, the content deltas left out', async (_name, fixture) => {
    const whole = decoded(fixture.bytes, dialect);
    const skipped = skimmed(fixture.bytes, dialect);
    // The first delta of a block is decoded (it opens the block): every later one is skipped.
    const firsts = new Set<string>();
    expect(skipped).toEqual(whole.filter((event) => !isContentDelta(event) || (id === 'ollama_chat' && !firsts.has(event.id) && firsts.add(event.id))));
    // The same at any cut of the body (a delta split across reads is still recognized, or decoded).
    const random = seededRandom(fixture.bytes.length);
    for (let i = 0; i < 5; i++) {
      const events: Event[] = [];
      for await (const event of decodeDialectStream(dialect, streamOf(randomCuts(fixture.bytes, random)), { textDeltas: false })) events.push(event);
      expect(events).toEqual(skipped);
    }
  });

  it('skips deltas in every recording that has text', () => {
    const withDeltas = fixtures.filter((fixture) => decoded(fixture.bytes, dialect).filter(isContentDelta).length > 1);
    expect(withDeltas.length).toBeGreaterThanOrEqual(id === 'ollama_chat' ? 1 : 10);
    for (const fixture of withDeltas) expect(skimmed(fixture.bytes, dialect).filter(isContentDelta).length, fixture.name).toBeLessThan(decoded(fixture.bytes, dialect).filter(isContentDelta).length);
  });
});

function sse(...payloads: (object | string)[]): string {
  return payloads.map((p) => (typeof p === 'string' ? `event: content_block_delta\ndata: ${p}\n\n` : `event: ${(p as { type: string }).type}\ndata: ${JSON.stringify(p)}\n\n`)).join('');
}
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 10, output_tokens: 1 } } };
const textStart = (index: number) => ({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
const toolStart = (index: number) => ({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: 'toolu_1', name: 'look', input: {} } });
const stop = (index: number) => ({ type: 'content_block_stop', index });
const end = [{ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }, { type: 'message_stop' }];

describe('Anthropic decoder, textDeltas: false: the forms it decodes', () => {
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

describe('Ollama decoder, textDeltas: false: the forms it decodes', () => {
  const line = (value: object | string) => `${typeof value === 'string' ? value : JSON.stringify(value)}\n`;
  const head = { model: 'qwen3', created_at: '2026-01-01T00:00:00Z' };
  const first = line({ ...head, message: { role: 'assistant', content: 'One' }, done: false });
  const done = line({ ...head, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 5, eval_count: 3 });

  it.each([' two', 'say "hi"\n', '\\', '日本 🙂'])('skips a text line after the first: %j', (text) => {
    const body = first + line(`{"model":"qwen3","created_at":"x","message":{"role":"assistant","content":${JSON.stringify(text)}},"done":false}`) + done;
    const whole = decoded(body, ollamaChat);
    expect(whole.filter((event) => event.type === 'text-delta').map((event) => event.type === 'text-delta' && event.delta)).toEqual(['One', text]);
    expect(skimmed(body, ollamaChat)).toEqual(whole.filter((event) => !(event.type === 'text-delta' && event.delta === text)));
  });

  it.each([
    ['thinking beside the text', line({ ...head, message: { role: 'assistant', content: 'a', thinking: 'hm' }, done: false })],
    ['a tool call', line({ ...head, message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'look', arguments: { q: 'x' } } }] }, done: false })],
    ['the last line', line({ ...head, message: { role: 'assistant', content: 'a' }, done: true, done_reason: 'stop', eval_count: 2 })],
    ['thinking after the text', line(`{"model":"qwen3","created_at":"x","message":{"role":"assistant","content":"a\\"","thinking":"hm"},"done":false}`)],
    ['another field in the message', line({ ...head, message: { role: 'assistant', content: 'a', images: null }, done: false })],
    ['spaces after the colons', line(`{"model": "qwen3", "created_at": "x", "message": {"role": "assistant", "content": "a"}, "done": false}`)],
    ['an error line', line({ error: 'the runner crashed' })],
    ['a cut-off line', line(`{"model":"qwen3","created_at":"x","message":{"role":"assistant","content":"a`)],
  ])('%s: decoded, not skipped', (_name, text) => {
    const body = first + text + done;
    expect(skimmed(body, ollamaChat)).toEqual(decoded(body, ollamaChat));
  });
});
