import { collectResponse, type Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { decodeAtCuts } from '../../test/conformance.ts';
import { decodeDialectText as decodeText } from '../decode-stream.ts';
import { openaiResponses } from './index.ts';

/** An SSE body as the API frames it: `event:` repeats the payload's `type`. */
function sse(...payloads: (object | string)[]): string {
  return payloads
    .map((p) => (typeof p === 'string' ? `data: ${p}\n\n` : `event: ${(p as { type: string }).type}\ndata: ${JSON.stringify(p)}\n\n`))
    .join('');
}

const created = { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5', status: 'in_progress' } };
const message = (id: string, extra: object = {}) => ({ type: 'response.output_item.added', output_index: 0, item: { type: 'message', id, role: 'assistant', content: [], ...extra } });
const textDelta = (id: string, delta: string) => ({ type: 'response.output_text.delta', item_id: id, content_index: 0, delta });
const messageDone = (id: string, text: string) => ({
  type: 'response.output_item.done',
  output_index: 0,
  item: { type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] },
});
const completed = (usage: object | null = { input_tokens: 10, output_tokens: 5, total_tokens: 15 }) => ({
  type: 'response.completed',
  response: { id: 'resp_1', model: 'gpt-5', status: 'completed', usage },
});

function decode(body: string): Event[] {
  return decodeText(openaiResponses, body);
}

describe('openai_responses decoding: bad input', () => {
  it('reports invalid JSON as invalid_response after keeping the text so far', async () => {
    const events = decode(sse(created, message('msg_1'), textDelta('msg_1', 'Hel'), '{"type": "response.output_text.delta", "delta": '));
    const response = await collectResponse(events);
    expect(response.message.parts).toMatchObject([{ type: 'text', text: 'Hel' }]);
    expect(response.error?.code).toBe('invalid_response');
    expect(response.finishReason).toBe('error');
    expect(events.at(-1)?.type).toBe('finish');
  });

  it('ignores unknown event types and progress events', async () => {
    const events = decode(
      sse(created, { type: 'response.something_new', foo: 1 }, { type: 'response.web_search_call.searching', item_id: 'x' }, message('msg_1'), textDelta('msg_1', 'Hi'), messageDone('msg_1', 'Hi'), completed()),
    );
    const response = await collectResponse(events);
    expect(response.error).toBeUndefined();
    expect(response.finishReason).toBe('stop');
    expect(response.message.parts).toMatchObject([{ type: 'text', text: 'Hi' }]);
  });

  it('reports a stream cut before response.completed', async () => {
    const events = decode(sse(created, message('msg_1'), textDelta('msg_1', 'Partial')));
    const response = await collectResponse(events);
    expect(response.message.parts).toMatchObject([{ type: 'text', text: 'Partial' }]);
    expect(response.error?.code).toBe('invalid_response');
    expect(response.finishReason).toBe('error');
  });

  it('maps an error event code and keeps what arrived', async () => {
    const events = decode(
      sse(created, message('msg_1'), textDelta('msg_1', 'Some'), { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down', param: null, sequence_number: 4 }),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toMatchObject([{ type: 'text', text: 'Some' }]);
    expect(response.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(response.error?.message).toContain('Slow down');
    expect(response.finishReason).toBe('error');
  });

  it.each([
    ['server_error', 'server_error'],
    ['context_length_exceeded', 'context_length_exceeded'],
    ['invalid_prompt', 'content_filter'],
    ['invalid_image_url', 'invalid_request'],
    ['vector_store_timeout', 'timeout'],
    ['something_else', 'unknown'],
  ])('maps response.failed code %s to %s', async (raw, code) => {
    const events = decode(
      sse(created, { type: 'response.failed', response: { id: 'resp_1', status: 'failed', error: { code: raw, message: 'Boom' }, usage: null } }),
    );
    const response = await collectResponse(events);
    expect(response.error?.code).toBe(code);
    expect(response.finishReason).toBe('error');
  });

  it('maps a nested error envelope (compatible servers)', async () => {
    const events = decode(sse(created, { type: 'error', error: { type: 'invalid_request_error', code: null, message: 'Bad input' } }));
    expect((await collectResponse(events)).error).toMatchObject({ code: 'invalid_request', message: 'Bad input' });
  });

  it('reports a delta that is not a string', async () => {
    const bad = await collectResponse(decode(sse(created, { type: 'response.output_text.delta', item_id: 'm', content_index: 0, delta: 5 })));
    expect(bad.error?.code).toBe('invalid_response');
  });

  it('ignores [DONE] and SSE comments', async () => {
    const body = `: keep-alive\n\n${sse(created, message('m'), textDelta('m', 'ok'), messageDone('m', 'ok'), completed())}data: [DONE]\n\n`;
    const response = await collectResponse(decode(body));
    expect(response.finishReason).toBe('stop');
    expect(response.error).toBeUndefined();
  });
});

describe('openai_responses decoding: endings', () => {
  it('maps response.incomplete reasons', async () => {
    for (const [reason, finish] of [['max_output_tokens', 'length'], ['content_filter', 'content-filter'], ['other_reason', 'other']] as const) {
      const events = decode(
        sse(created, message('m'), textDelta('m', 'cut'), { type: 'response.incomplete', response: { id: 'resp_1', status: 'incomplete', incomplete_details: { reason }, usage: { input_tokens: 3, output_tokens: 16, total_tokens: 19 } } }),
      );
      const response = await collectResponse(events);
      expect(response.finishReason).toBe(finish);
      expect(response.rawFinishReason).toBe(reason);
      expect(response.usage.outputTokens).toBe(16);
    }
  });

  it('ends with refusal when the model refused, showing the refusal text', async () => {
    const events = decode(
      sse(
        created,
        message('m'),
        { type: 'response.content_part.added', item_id: 'm', content_index: 0, part: { type: 'refusal', refusal: '' } },
        { type: 'response.refusal.delta', item_id: 'm', content_index: 0, delta: "I can't help with that." },
        completed(),
      ),
    );
    const response = await collectResponse(events);
    expect(response.finishReason).toBe('refusal');
    expect(response.message.parts).toMatchObject([{ type: 'text', text: "I can't help with that.", providerState: { openai_responses: { itemId: 'm', refusal: true } } }]);
  });

  it('leaves unreported usage fields undefined and keeps cache and reasoning counts', async () => {
    const none = await collectResponse(decode(sse(created, completed(null))));
    expect(none.usage).toEqual({});
    const full = await collectResponse(
      decode(sse(created, completed({ input_tokens: 100, input_tokens_details: { cached_tokens: 80, cache_write_tokens: 5 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 30 }, total_tokens: 150 }))),
    );
    expect(full.usage).toEqual({ inputTokens: 100, cacheReadTokens: 80, cacheWriteTokens: 5, outputTokens: 50, reasoningTokens: 30, totalTokens: 150 });
  });

  it('takes text and arguments from output_item.done when a server sends no deltas', async () => {
    const events = decode(
      sse(
        created,
        messageDone('m', 'Whole text'),
        { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' } },
        completed(),
      ),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toMatchObject([
      { type: 'text', text: 'Whole text' },
      { type: 'tool-call', id: 'call_1', name: 'lookup', input: { q: 'x' }, providerState: { openai_responses: { itemId: 'fc_1' } } },
    ]);
    expect(response.finishReason).toBe('tool-calls');
  });
});

describe('openai_responses decoding: reasoning', () => {
  it('keeps encrypted content and item id for the round trip, one block per summary part', async () => {
    const events = decode(
      sse(
        created,
        { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'early' } },
        { type: 'response.reasoning_summary_part.added', item_id: 'rs_1', summary_index: 0, part: { type: 'summary_text', text: '' } },
        { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', summary_index: 0, delta: 'First' },
        { type: 'response.reasoning_summary_part.added', item_id: 'rs_1', summary_index: 1, part: { type: 'summary_text', text: '' } },
        { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', summary_index: 1, delta: 'Second' },
        { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'First' }, { type: 'summary_text', text: 'Second' }], encrypted_content: 'final-blob' } },
        message('m'),
        textDelta('m', 'Answer'),
        messageDone('m', 'Answer'),
        completed(),
      ),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toMatchObject([
      { type: 'reasoning', text: 'First', providerState: { openai_responses: { itemId: 'rs_1', encryptedContent: 'final-blob' } } },
      { type: 'reasoning', text: 'Second', providerState: { openai_responses: { itemId: 'rs_1' } } },
      { type: 'text', text: 'Answer' },
    ]);
    expect(response.message.parts[0]).not.toHaveProperty('redacted');
  });

  it('shows encrypted-only reasoning as one empty redacted part', async () => {
    const events = decode(
      sse(
        created,
        { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_2', summary: [] } },
        { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'blob' } },
        completed(),
      ),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([
      { type: 'reasoning', text: '', redacted: true, providerState: { openai_responses: { itemId: 'rs_2', encryptedContent: 'blob' } } },
    ]);
  });

  it('does not show a reasoning item with neither text nor encrypted content', async () => {
    const events = decode(
      sse(created, { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', id: 'rs_3', summary: [] } }, completed()),
    );
    expect((await collectResponse(events)).message.parts).toEqual([]);
  });
});

describe('openai_responses decoding: built-in tools', () => {
  it('turns a web search into a provider-executed call and result, and citations into sources', async () => {
    const search = { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'weather' } };
    const events = decode(
      sse(
        created,
        { type: 'response.output_item.added', output_index: 0, item: { type: 'web_search_call', id: 'ws_1', status: 'in_progress' } },
        { type: 'response.web_search_call.completed', item_id: 'ws_1', output_index: 0 },
        { type: 'response.output_item.done', output_index: 0, item: search },
        message('m'),
        textDelta('m', 'Sunny.'),
        { type: 'response.output_text.annotation.added', item_id: 'm', content_index: 0, annotation_index: 0, annotation: { type: 'url_citation', url: 'https://weather.example', title: 'Weather', start_index: 0, end_index: 6 } },
        { type: 'response.output_text.annotation.added', item_id: 'm', content_index: 0, annotation_index: 1, annotation: { type: 'file_citation', file_id: 'file-1', index: 3 } },
        messageDone('m', 'Sunny.'),
        completed(),
      ),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toMatchObject([
      { type: 'tool-call', id: 'ws_1', name: 'web_search', providerExecuted: true, input: { type: 'search', query: 'weather' } },
      { type: 'tool-result', toolCallId: 'ws_1', name: 'web_search', providerExecuted: true, output: search },
      { type: 'text', text: 'Sunny.' },
      { type: 'source', url: 'https://weather.example', title: 'Weather' },
    ]);
    // Only client calls make a 'tool-calls' finish.
    expect(response.finishReason).toBe('stop');
  });

  it('emits generated images as files and marks failed MCP calls as errors', async () => {
    const events = decode(
      sse(
        created,
        { type: 'response.output_item.done', output_index: 0, item: { type: 'image_generation_call', id: 'ig_1', status: 'completed', result: 'aGVsbG8=', output_format: 'webp' } },
        { type: 'response.output_item.done', output_index: 1, item: { type: 'mcp_call', id: 'mcp_1', status: 'failed', name: 'ask', server_label: 'wiki', arguments: '{"q":1}', error: 'unreachable', output: null } },
        completed(),
      ),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toMatchObject([
      { type: 'tool-call', id: 'ig_1', name: 'image_generation', providerExecuted: true },
      { type: 'file', mediaType: 'image/webp', data: 'aGVsbG8=' },
      { type: 'tool-result', toolCallId: 'ig_1', providerExecuted: true },
      { type: 'tool-call', id: 'mcp_1', name: 'mcp', input: { server_label: 'wiki', name: 'ask', arguments: { q: 1 } } },
      { type: 'tool-result', toolCallId: 'mcp_1', isError: true },
    ]);
  });

  it('pairs a server tool search with its output item', async () => {
    const events = decode(
      sse(
        created,
        { type: 'response.output_item.done', output_index: 0, item: { type: 'tool_search_call', id: 'tsc_1', execution: 'server', call_id: null, arguments: { paths: ['x'] }, status: 'completed' } },
        { type: 'response.output_item.done', output_index: 1, item: { type: 'tool_search_output', id: 'tso_1', execution: 'server', call_id: null, tools: [], status: 'completed' } },
        completed(),
      ),
    );
    const parts = (await collectResponse(events)).message.parts;
    expect(parts).toMatchObject([
      { type: 'tool-call', id: 'tsc_1', name: 'tool_search', providerExecuted: true, input: { paths: ['x'] } },
      { type: 'tool-result', toolCallId: 'tsc_1', name: 'tool_search', providerExecuted: true, output: { type: 'tool_search_output' } },
    ]);
  });
});

const decodeCut = (body: string) => decodeAtCuts(openaiResponses, body);

describe('openai_responses decoding: variants seen in the wild', () => {
  it('matches events to items by output index when the server puts a new item id on every event', async () => {
    // GitHub Copilot's Responses endpoint: every event, and the final response, carries a fresh id.
    let n = 0;
    const id = () => `rot-${++n}`;
    const body = sse(
      { type: 'response.created', response: { id: id(), model: 'gpt-5.3-codex', status: 'in_progress', output: [] } },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: id(), summary: [] } },
      { type: 'response.reasoning_summary_part.added', item_id: id(), output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } },
      { type: 'response.reasoning_summary_text.delta', item_id: id(), output_index: 0, summary_index: 0, delta: 'Counting' },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', id: id(), summary: [{ type: 'summary_text', text: 'Counting' }] } },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'message', id: id(), role: 'assistant', content: [] } },
      { type: 'response.content_part.added', item_id: id(), output_index: 1, content_index: 0, part: { type: 'output_text', text: '' } },
      { type: 'response.output_text.delta', item_id: id(), output_index: 1, content_index: 0, delta: 'Three ' },
      { type: 'response.output_text.delta', item_id: id(), output_index: 1, content_index: 0, delta: 'r’s.' },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'message', id: id(), role: 'assistant', content: [{ type: 'output_text', text: 'Three r’s.' }] } },
      { type: 'response.output_item.added', output_index: 2, item: { type: 'function_call', id: id(), call_id: 'call_9', name: 'count', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: id(), output_index: 2, delta: '{"letter":' },
      { type: 'response.function_call_arguments.delta', item_id: id(), output_index: 2, delta: '"r"}' },
      { type: 'response.output_item.done', output_index: 2, item: { type: 'function_call', id: id(), call_id: 'call_9', name: 'count', arguments: '{"letter":"r"}' } },
      {
        type: 'response.completed',
        response: {
          id: id(),
          status: 'completed',
          output: [
            { type: 'reasoning', id: id(), summary: [{ type: 'summary_text', text: 'Counting' }] },
            { type: 'message', id: id(), role: 'assistant', content: [{ type: 'output_text', text: 'Three r’s.' }] },
            { type: 'function_call', id: id(), call_id: 'call_9', name: 'count', arguments: '{"letter":"r"}' },
          ],
          usage: { input_tokens: 19, output_tokens: 12, total_tokens: 31 },
        },
      },
    );
    const response = await collectResponse(await decodeCut(body));
    expect(response.error).toBeUndefined();
    expect(response.message.parts).toMatchObject([
      { type: 'reasoning', text: 'Counting' },
      { type: 'text', text: 'Three r’s.' },
      { type: 'tool-call', id: 'call_9', name: 'count', input: { letter: 'r' } },
    ]);
    expect(response.message.parts).toHaveLength(3);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('takes items that never got output_item.done from the final response, without repeating streamed text', async () => {
    const body = sse(
      created,
      message('m'),
      textDelta('m', 'Looking it up.'),
      {
        type: 'response.completed',
        response: {
          id: 'resp_1',
          status: 'completed',
          output: [
            { type: 'message', id: 'm', role: 'assistant', content: [{ type: 'output_text', text: 'Looking it up.' }] },
            { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
          ],
        },
      },
    );
    const response = await collectResponse(await decodeCut(body));
    expect(response.message.parts).toMatchObject([
      { type: 'text', text: 'Looking it up.' },
      { type: 'tool-call', id: 'call_1', name: 'lookup', input: { q: 'x' } },
    ]);
    expect(response.message.parts).toHaveLength(2);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('decodes a stream that is only the final response', async () => {
    const body = sse({
      type: 'response.completed',
      response: {
        id: 'resp_9',
        model: 'grok-4',
        status: 'completed',
        output: [
          { type: 'reasoning', id: 'rs_9', summary: [], content: [{ type: 'reasoning_text', text: 'Short.' }] },
          { type: 'message', id: 'msg_9', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
        ],
        usage: { input_tokens: 4, output_tokens: 3, total_tokens: 7 },
      },
    });
    const response = await collectResponse(await decodeCut(body));
    expect(response.id).toBe('resp_9');
    expect(response.message.parts).toMatchObject([
      { type: 'reasoning', text: 'Short.', providerState: { openai_responses: { itemId: 'rs_9', kind: 'content' } } },
      { type: 'text', text: 'Done.' },
    ]);
    expect(response.finishReason).toBe('stop');
  });

  it('joins deltas numbered with a new content index each, and does not repeat text under another index', async () => {
    // vLLM: reasoning deltas count content_index up, and the message's part continues the count.
    const body = sse(
      created,
      { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_v', summary: [], content: null } },
      { type: 'response.content_part.added', item_id: 'rs_v', output_index: 0, content_index: 0, part: { type: 'reasoning_text', text: '' } },
      ...['Say', ' hello', '.'].map((delta, i) => ({ type: 'response.reasoning_text.delta', item_id: 'rs_v', output_index: 0, content_index: i, delta })),
      { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', id: 'rs_v', summary: [], content: [{ type: 'reasoning_text', text: 'Say hello.' }] } },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'message', id: 'msg_v', role: 'assistant', content: [] } },
      { type: 'response.content_part.added', item_id: 'msg_v', output_index: 1, content_index: 1, part: { type: 'output_text', text: '' } },
      { type: 'response.output_text.delta', item_id: 'msg_v', output_index: 1, content_index: 1, delta: 'Hello' },
      { type: 'response.output_text.delta', item_id: 'msg_v', output_index: 1, content_index: 2, delta: '!' },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'message', id: 'msg_v', role: 'assistant', content: [{ type: 'output_text', text: 'Hello!' }] } },
      completed(),
    );
    const response = await collectResponse(await decodeCut(body));
    expect(response.message.parts).toMatchObject([
      { type: 'reasoning', text: 'Say hello.', providerState: { openai_responses: { itemId: 'rs_v', kind: 'content' } } },
      { type: 'text', text: 'Hello!' },
    ]);
    expect(response.message.parts).toHaveLength(2);
  });

  it('shows the finished item text when parts were announced but no deltas came', async () => {
    const body = sse(
      created,
      { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
      { type: 'response.reasoning_summary_part.added', item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Plan.' }] } },
      message('m'),
      { type: 'response.content_part.added', item_id: 'm', output_index: 1, content_index: 0, part: { type: 'output_text', text: '' } },
      messageDone('m', 'Whole answer.'),
      completed(),
    );
    const response = await collectResponse(await decodeCut(body));
    expect(response.message.parts).toMatchObject([
      { type: 'reasoning', text: 'Plan.' },
      { type: 'text', text: 'Whole answer.' },
    ]);
    expect(response.message.parts).toHaveLength(2);
  });

  it('ignores argument deltas of a call never announced, taking the arguments from output_item.done', async () => {
    const body = sse(
      created,
      { type: 'response.function_call_arguments.delta', item_id: 'fc_x', output_index: 0, delta: '{"a":' },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_x', output_index: 0, delta: '1}' },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: 'fc_x', call_id: 'call_x', name: 'f', arguments: '{"a":1}' } },
      completed(),
    );
    const response = await collectResponse(await decodeCut(body));
    expect(response.error).toBeUndefined();
    expect(response.message.parts).toMatchObject([{ type: 'tool-call', id: 'call_x', name: 'f', input: { a: 1 } }]);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('keeps the reason of an error event that follows a response.failed without one', async () => {
    // Azure ends a content-filtered stream with response.failed (error: null), then an error event.
    const body = sse(
      created,
      { type: 'response.failed', response: { id: 'resp_1', status: 'failed', error: null, usage: { input_tokens: 7, output_tokens: 0, total_tokens: 7 } } },
      { type: 'error', error: { type: 'invalid_request_error', code: 'content_policy_violation', message: 'The response was filtered.' } },
    );
    const events = await decodeCut(body);
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    const response = await collectResponse(events);
    expect(response.error).toMatchObject({ code: 'content_filter' });
    expect(response.error?.message).toContain('filtered');
    expect(response.usage.inputTokens).toBe(7);
    expect(response.finishReason).toBe('error');
  });

  it('reports a response.failed without a reason when nothing follows it', async () => {
    const body = sse(created, message('m'), textDelta('m', 'Part'), { type: 'response.failed', response: { id: 'resp_1', status: 'failed', error: null } });
    const response = await collectResponse(await decodeCut(body));
    expect(response.message.parts).toMatchObject([{ type: 'text', text: 'Part' }]);
    expect(response.error).toMatchObject({ code: 'unknown', message: 'The response failed' });
    expect(response.finishReason).toBe('error');
  });

  it('reads an error beside the response of response.failed, and a bare {error} payload', async () => {
    const beside = await collectResponse(await decodeCut(sse(created, { type: 'response.failed', error: { code: 'server_error', message: 'Upstream failed' } })));
    expect(beside.error).toMatchObject({ code: 'server_error' });
    expect(beside.error?.message).toContain('Upstream failed');
    const bare = await collectResponse(await decodeCut(`${sse(created, message('m'), textDelta('m', 'So far'))}data: {"error":{"message":"Quota exceeded","type":"insufficient_quota","code":"insufficient_quota"}}\n\n`));
    expect(bare.message.parts).toMatchObject([{ type: 'text', text: 'So far' }]);
    expect(bare.error).toMatchObject({ code: 'rate_limited', retryable: false });
    expect(bare.error?.message).toContain('Quota exceeded');
  });

  it('shows xAI server-side tools reported as custom tool calls as provider-executed, and its cost', async () => {
    const search = { type: 'custom_tool_call', id: 'ctc_1', call_id: 'xs_call_1', name: 'x_keyword_search', input: '{"query":"from:xai","limit":5}', status: 'completed' };
    const body = sse(
      { type: 'response.created', response: { id: 'r1', model: 'grok-4', status: 'in_progress', tools: [{ type: 'x_search' }, { type: 'function', name: 'save' }] } },
      { type: 'response.output_item.added', output_index: 0, item: { ...search, input: '', status: 'in_progress' } },
      { type: 'response.custom_tool_call_input.delta', item_id: 'ctc_1', output_index: 0, delta: search.input },
      { type: 'response.custom_tool_call_input.done', item_id: 'ctc_1', output_index: 0, input: search.input },
      { type: 'response.output_item.done', output_index: 0, item: search },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'save', arguments: '{}' } },
      { type: 'response.completed', response: { id: 'r1', status: 'completed', usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110, cost_in_usd_ticks: 37756000 } } },
    );
    const response = await collectResponse(await decodeCut(body));
    expect(response.message.parts).toMatchObject([
      { type: 'tool-call', id: 'ctc_1', name: 'x_keyword_search', providerExecuted: true, input: { query: 'from:xai', limit: 5 } },
      { type: 'tool-result', toolCallId: 'ctc_1', name: 'x_keyword_search', providerExecuted: true, output: search },
      { type: 'tool-call', id: 'call_1', name: 'save', input: {} },
    ]);
    expect(response.message.parts[2]).not.toHaveProperty('providerExecuted');
    expect(response.usage.cost).toBeCloseTo(0.0037756, 10);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('keeps a custom tool call the request declared as the app’s own, beside server tools', async () => {
    const call = { type: 'custom_tool_call', id: 'ctc_2', call_id: 'call_2', name: 'write_sql', input: 'SELECT 1' };
    const body = sse(
      { type: 'response.created', response: { id: 'r2', status: 'in_progress', tools: [{ type: 'web_search' }, { type: 'custom', name: 'write_sql' }] } },
      { type: 'response.output_item.added', output_index: 0, item: { ...call, input: '' } },
      { type: 'response.output_item.done', output_index: 0, item: call },
      { type: 'response.completed', response: { id: 'r2', status: 'completed' } },
    );
    const response = await collectResponse(await decodeCut(body));
    expect(response.message.parts).toMatchObject([{ type: 'tool-call', id: 'call_2', name: 'write_sql', input: 'SELECT 1', providerState: { openai_responses: { itemType: 'custom_tool_call' } } }]);
    expect(response.message.parts[0]).not.toHaveProperty('providerExecuted');
    expect(response.finishReason).toBe('tool-calls');
  });
});
