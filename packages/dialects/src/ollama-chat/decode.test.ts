import { collectResponse } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { assertWellFormed, decodeAtCuts, decodeChunks } from '../../test/conformance.ts';
import { ollamaChat } from './index.ts';

// Streams built from the documented format (docs/api.md, "Chat request (Streaming with tools)" etc.).
const encoder = new TextEncoder();
const line = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ model: 'qwen3:8b', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: '', ...message }, done: false, ...extra })}\n`;
const done = (extra: Record<string, unknown> = {}) =>
  line({}, { done: true, done_reason: 'stop', total_duration: 1, prompt_eval_count: 30, eval_count: 12, eval_duration: 1, ...extra });
const body = (...lines: string[]) => encoder.encode(lines.join(''));

const decodeEverywhere = (bytes: Uint8Array) => decodeAtCuts(ollamaChat, bytes);

describe('ollama_chat decoder', () => {
  it('decodes a thinking stream into reasoning then text, with usage', async () => {
    const events = await decodeEverywhere(
      body(line({ thinking: 'The user wants ' }), line({ thinking: 'a greeting.' }), line({ content: 'Hello' }), line({ content: ' there!' }), done()),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([
      { type: 'reasoning', text: 'The user wants a greeting.' },
      { type: 'text', text: 'Hello there!' },
    ]);
    expect(response.model).toBe('qwen3:8b');
    expect(response.usage).toEqual({ inputTokens: 30, outputTokens: 12, totalTokens: 42 });
    expect(response.finishReason).toBe('stop');
    expect(response.rawFinishReason).toBe('stop');
  });

  it('decodes tool calls with synthesized stable ids and object arguments', async () => {
    const events = await decodeEverywhere(
      body(
        line({ content: 'Checking.' }),
        line({ tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Tokyo' } } }] }),
        line({ tool_calls: [{ function: { index: 1, name: 'get_time', arguments: { tz: 'Asia/Tokyo', precise: true } } }] }),
        done(),
      ),
    );
    const response = await collectResponse(events);
    const calls = response.message.parts.filter((p) => p.type === 'tool-call');
    expect(calls).toEqual([
      { type: 'tool-call', id: 'call_0', name: 'get_weather', input: { city: 'Tokyo' } },
      { type: 'tool-call', id: 'call_1', name: 'get_time', input: { tz: 'Asia/Tokyo', precise: true } },
    ]);
    expect(response.finishReason).toBe('tool-calls');
    // The streamed fragments carry the same arguments.
    const delta = events.find((e) => e.type === 'tool-call-delta' && e.id === 'call_0');
    expect(delta && JSON.parse((delta as { delta: string }).delta)).toEqual({ city: 'Tokyo' });
  });

  it('uses a tool-call id when the server sends one', async () => {
    const response = await collectResponse(await decodeChunks(ollamaChat, [body(line({ tool_calls: [{ id: 'abc', function: { name: 'f', arguments: {} } }] }), done())]));
    expect(response.message.parts[0]).toMatchObject({ id: 'abc', input: {} });
  });

  it('keeps multibyte text whole across any byte cut', async () => {
    const text = ['日本語の', 'テキスト 🌸', ' — café'];
    const response = await collectResponse(await decodeEverywhere(body(...text.map((t) => line({ content: t })), done())));
    expect(response.message.parts[0]).toEqual({ type: 'text', text: text.join('') });
  });

  it.each([
    ['length', 'length'],
    ['load', 'other'],
    ['unload', 'other'],
  ])('maps done_reason %s to %s', async (raw, reason) => {
    const response = await collectResponse(await decodeChunks(ollamaChat, [body(line({ content: 'x' }), done({ done_reason: raw }))]));
    expect(response.finishReason).toBe(reason);
    expect(response.rawFinishReason).toBe(raw);
  });

  it('finishes a load-only response at the end of the body, and keeps generating if lines follow a load notice', async () => {
    const loadLine = `${JSON.stringify({ model: 'qwen3:8b', created_at: 't', message: { role: 'assistant', content: '' }, done: true, done_reason: 'load' })}\n`;
    const loadOnly = await collectResponse(await decodeEverywhere(body(loadLine)));
    expect(loadOnly.finishReason).toBe('other');
    expect(loadOnly.rawFinishReason).toBe('load');
    expect(loadOnly.error).toBeUndefined();
    const response = await collectResponse(await decodeEverywhere(body(loadLine, line({ content: 'Hi' }), done())));
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Hi' }]);
    expect(response.finishReason).toBe('stop');
  });

  it('leaves usage the server did not report undefined', async () => {
    const response = await collectResponse(await decodeChunks(ollamaChat, [body(line({ content: 'x' }), line({}, { done: true, done_reason: 'stop' }))]));
    expect(response.usage).toEqual({});
  });
});

describe('ollama_chat bad input', () => {
  it('turns a mid-stream error line into an error event after the text', async () => {
    const events = await decodeChunks(ollamaChat, [body(line({ content: 'Once upon' }), '{"error":"an error was encountered while running the model: unexpected EOF"}\n')]);
    assertWellFormed(events);
    const response = await collectResponse(events);
    expect(response.message.parts[0]).toEqual({ type: 'text', text: 'Once upon' });
    expect(response.error).toMatchObject({ code: 'server_error', retryable: true });
    expect(response.error?.message).toContain('unexpected EOF');
    expect(response.finishReason).toBe('error');
  });

  it('maps a missing model to not_found', async () => {
    const response = await collectResponse(await decodeChunks(ollamaChat, [body('{"error":"model \\"llama9\\" not found, try pulling it first"}\n')]));
    expect(response.error?.code).toBe('not_found');
  });

  it('reports invalid JSON as invalid_response, keeping the text', async () => {
    const events = await decodeChunks(ollamaChat, [body(line({ content: 'Hi' }), '{"message": {"content": \n', line({ content: ' again' }), done())]);
    assertWellFormed(events);
    const response = await collectResponse(events);
    expect(response.message.parts[0]).toEqual({ type: 'text', text: 'Hi' });
    expect(response.error?.code).toBe('invalid_response');
  });

  it('ignores unknown fields', async () => {
    const response = await collectResponse(
      await decodeChunks(ollamaChat, [body(line({ content: 'a', images: null, newField: 1 }, { logprobs: [] }), done({ something_new: true }))]),
    );
    expect(response.message.parts).toEqual([{ type: 'text', text: 'a' }]);
    expect(response.finishReason).toBe('stop');
  });

  it('reports a stream cut before done', async () => {
    const events = await decodeChunks(ollamaChat, [body(line({ thinking: 'hmm' }), line({ content: 'Par' }))]);
    assertWellFormed(events);
    const response = await collectResponse(events);
    expect(response.message.parts.map((p) => p.type)).toEqual(['reasoning', 'text']);
    expect(response.error?.code).toBe('invalid_response');
    expect(response.finishReason).toBe('error');
  });

  it('keeps a tool call whose name is empty or missing (small models emit them) and decodes the rest', async () => {
    const events = await decodeEverywhere(
      body(line({ tool_calls: [{ id: 'call_x', function: { index: 0, name: '', arguments: { n: '10' } } }] }), line({ tool_calls: [{ function: { arguments: {} } }] }), line({ content: 'ok' }), done()),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([
      { type: 'tool-call', id: 'call_x', name: '', input: { n: '10' } },
      { type: 'tool-call', id: 'call_1', name: '', input: {} },
      { type: 'text', text: 'ok' },
    ]);
    expect(response.error).toBeUndefined();
    expect(response.usage).toEqual({ inputTokens: 30, outputTokens: 12, totalTokens: 42 });
  });

  it('reports a tool call without a function object as invalid_response', async () => {
    const response = await collectResponse(await decodeChunks(ollamaChat, [body(line({ tool_calls: [{ name: 'f' }] }), done())]));
    expect(response.error?.code).toBe('invalid_response');
  });

  it('keeps call ids unique when the server repeats one', async () => {
    const call = { id: 'call_a', function: { name: 'f', arguments: {} } };
    const response = await collectResponse(await decodeEverywhere(body(line({ tool_calls: [call] }), line({ tool_calls: [call] }), done())));
    expect(response.message.parts.map((p) => (p.type === 'tool-call' ? p.id : p.type))).toEqual(['call_a', 'call_a_1']);
  });

  it('never throws on absurd lines', async () => {
    for (const text of ['null\n', '[1]\n', '"x"\n', '{"message": 5, "done": "yes"}\n', '{"message": {"tool_calls": "x"}}\n']) {
      const events = await decodeChunks(ollamaChat, [encoder.encode(text)]);
      expect(events.at(-1)?.type).toBe('finish');
    }
  });
});
