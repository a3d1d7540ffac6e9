import type { Event, Response } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { encodeResponseStream } from '../shared/response-encoding.ts';
import { anthropicResponseEncoding, encodeAnthropicResponse } from './encode-response.ts';

describe('Anthropic response encoding', () => {
  it('writes no `citations` on a text block that cites nothing, streamed or not (real bodies omit it)', () => {
    const response = { message: { id: 'm', role: 'assistant', parts: [{ type: 'text', text: 'Hi' }] }, finishReason: 'stop', usage: {}, warnings: [] } as unknown as Response;
    const body = encodeAnthropicResponse(response) as { content: Record<string, unknown>[] };
    expect(body.content).toEqual([{ type: 'text', text: 'Hi' }]);
    const events: Event[] = [{ type: 'message-start' }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Hi' }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: 'stop', usage: {} }];
    expect(encodeResponseStream(anthropicResponseEncoding, events)).toContain('"content_block":{"type":"text","text":""}');
  });

  it('puts the input count known at the start in message_start, and the whole count in message_delta', () => {
    const events: Event[] = [{ type: 'message-start' }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Hi' }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: 'stop', usage: { inputTokens: 21, outputTokens: 9 } }];
    const frames = encodeResponseStream(anthropicResponseEncoding, events, { usage: { inputTokens: 21 } })
      .split('\n\n')
      .filter((frame) => frame.includes('data: '))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)));
    expect(frames[0].message.usage.input_tokens).toBe(21);
    expect(frames.find((f) => f.type === 'message_delta').usage).toMatchObject({ input_tokens: 21, output_tokens: 9 });
  });
});
