import { describe, expect, it } from 'vitest';
import { collectResponse, messageText, type Event } from '@parlance/protocol';
import { fakeModel } from './fake-model.ts';

async function events(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

describe('fakeModel', () => {
  it('replays turns in order (the last repeats) and records every request', async () => {
    const model = fakeModel({ script: [{ text: 'one' }, { reasoning: 'hmm', text: 'two', usage: { outputTokens: 3 } }] });
    const first = await collectResponse(model.stream({ messages: [] }));
    const second = await collectResponse(model.stream({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }));
    const third = await collectResponse(model.stream({ messages: [] }));
    expect(messageText(first.message)).toBe('one');
    expect(second.message.parts.map((p) => p.type)).toEqual(['reasoning', 'text']);
    expect(second.usage).toEqual({ outputTokens: 3 });
    expect(messageText(third.message)).toBe('two');
    expect(model.requests).toHaveLength(3);
    expect(model.requests[1]!.messages[0]!.id).toBe('u');
    expect([model.provider, model.modelId, model.dialect]).toEqual(['fake', 'fake-model', 'fake']);
  });

  it('scripts tool calls, finish reasons and functions of the request', async () => {
    const model = fakeModel({ script: (request, call) => ({ text: `call ${call}: ${request.messages.length}`, finishReason: 'length' }) });
    const response = await collectResponse(model.stream({ messages: [] }));
    expect(messageText(response.message)).toBe('call 0: 0');
    expect(response.finishReason).toBe('length');
    const tools = fakeModel({ script: [{ toolCalls: [{ id: 'c1', name: 'f', input: { a: 1 } }] }] });
    const called = await collectResponse(tools.stream({ messages: [] }));
    expect(called.finishReason).toBe('tool-calls');
    expect(called.message.parts).toEqual([{ type: 'tool-call', id: 'c1', name: 'f', input: { a: 1 } }]);
  });

  it('fails as an HTTP error or mid-stream, never by throwing', async () => {
    const http = fakeModel({ script: [{ text: 'x', error: { code: 'rate_limited', message: 'slow down', status: 429 } }] });
    expect(await events(http.stream({ messages: [] }))).toEqual([
      { type: 'error', code: 'rate_limited', message: 'slow down', retryable: true, status: 429 },
      { type: 'finish', finishReason: 'error', usage: {} },
    ]);
    const mid = fakeModel({ script: [{ text: 'a b c', error: { code: 'network', message: 'reset', afterEvents: 3 } }] });
    const response = await collectResponse(mid.stream({ messages: [] }));
    expect(messageText(response.message)).toBe('a ');
    expect(response.error?.code).toBe('network');
  });

  it('honours delays and abort signals', async () => {
    const model = fakeModel({ script: [{ text: ['a', 'b', 'c'], delayMs: 30 }] });
    const controller = new AbortController();
    const seen: Event[] = [];
    for await (const event of model.stream({ messages: [] }, { signal: controller.signal })) {
      seen.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(seen.filter((e) => e.type === 'text-delta')).toHaveLength(1);
    expect(seen.slice(-2)).toEqual([
      { type: 'error', code: 'aborted', message: 'The request was aborted', retryable: false },
      { type: 'finish', finishReason: 'cancelled', usage: {} },
    ]);
    expect(model.callOptions[0]!.signal).toBe(controller.signal);
  });

  it('a stopped or failed turn finishes with the usage it reported before (startUsage: the input count comes first)', async () => {
    const startUsage = { inputTokens: 12, outputTokens: 1 };
    const cases = [
      { name: 'aborted', turn: { text: ['a', 'b', 'c'], startUsage, usage: { inputTokens: 12, outputTokens: 9 } }, abort: true, reason: 'cancelled' },
      { name: 'failed mid-stream', turn: { text: ['a', 'b'], startUsage, error: { code: 'network' as const, message: 'reset', afterEvents: 4 } }, abort: false, reason: 'error' },
    ];
    for (const { name, turn, abort, reason } of cases) {
      const model = fakeModel({ script: [turn] });
      const controller = new AbortController();
      const seen: Event[] = [];
      for await (const event of model.stream({ messages: [] }, { signal: controller.signal })) {
        seen.push(event);
        if (abort && event.type === 'text-delta') controller.abort();
      }
      expect(seen[1], name).toEqual({ type: 'usage', usage: startUsage });
      expect(seen.at(-1), name).toEqual({ type: 'finish', finishReason: reason, usage: startUsage });
    }
  });
});
