import type { Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { JSON_TEXTS } from '../../test/json-texts.ts';
import { type ResponseEncoderOptions, sseFrame } from '../shared/response-encoding.ts';
import { createResponsesResponseEncoder } from './encode-response.ts';

/** The JSON of an SSE frame's `data:` line. */
const dataOf = (frame: string) => JSON.parse(frame.slice(frame.indexOf('data: ') + 'data: '.length)) as Record<string, unknown>;

describe('the Responses stream encoder', () => {
  it.each([
    ['defaults', {}],
    ['a route name, response id and time', { model: 'gpt "mini"/é', responseId: 'resp_abc\u2028', created: 1_800_000_123 }],
  ] as [string, ResponseEncoderOptions][])('writes every delta event byte for byte as the whole event stringified, in sequence (%s)', (_name, options) => {
    const encoder = createResponsesResponseEncoder(options);
    let sequence = -1;
    const push = (event: Event) => {
      const frames = encoder.push(event);
      for (const frame of frames) {
        const data = dataOf(frame);
        expect(data.sequence_number).toBe(++sequence);
      }
      return frames;
    };
    push({ type: 'message-start' });
    // Each item kind, opened with an id that needs escaping, then deltas of every family, interleaved.
    const kinds = [
      { start: { type: 'reasoning-start', id: 'r"1' }, delta: 'reasoning-delta', id: 'r"1', type: 'response.reasoning_summary_text.delta', after: { summary_index: 0 } },
      { start: { type: 'text-start', id: 't\\1' }, delta: 'text-delta', id: 't\\1', type: 'response.output_text.delta', after: { content_index: 0, logprobs: [] } },
      { start: { type: 'tool-call-start', id: 'c\u20281', name: 'look_up' }, delta: 'tool-call-delta', id: 'c\u20281', type: 'response.function_call_arguments.delta', after: {} },
    ] as const;
    const items = kinds.map((kind) => {
      const added = dataOf(push(kind.start as Event)[0]!);
      return { ...kind, itemId: (added.item as { id: string }).id, outputIndex: added.output_index as number };
    });
    for (const text of JSON_TEXTS) {
      for (const item of items) {
        const [frame, ...rest] = push({ type: item.delta, id: item.id, delta: text } as Event);
        expect(rest).toEqual([]);
        const whole = { type: item.type, item_id: item.itemId, output_index: item.outputIndex, delta: text, ...item.after, sequence_number: sequence };
        expect(frame).toBe(sseFrame(whole, item.type));
        // A client reads the delta back (a lone surrogate as JSON.stringify writes it, escaped).
        expect(dataOf(frame!).delta).toBe(JSON.parse(JSON.stringify(text)));
      }
    }
  });
});
