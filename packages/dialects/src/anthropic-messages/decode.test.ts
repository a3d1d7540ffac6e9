import { collectResponse, type Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { assertWellFormed, decodeAtCuts } from '../../test/conformance.ts';
import { decodeDialectText } from '../decode-stream.ts';
import { anthropicMessages } from './index.ts';

/** Frames payloads as Anthropic sends them: `event: <type>` then `data: <json>`. */
function sse(...payloads: (object | string)[]): string {
  return payloads
    .map((p) => {
      if (typeof p === 'string') return `${p}\n\n`;
      return `event: ${(p as { type: string }).type}\ndata: ${JSON.stringify(p)}\n\n`;
    })
    .join('');
}

const start = (usage: object = { input_tokens: 10, output_tokens: 1 }) => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage },
});
const textStart = (index: number) => ({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
const textDelta = (index: number, text: string) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
const stop = (index: number) => ({ type: 'content_block_stop', index });
const messageDelta = (stop_reason: string, usage: object = { output_tokens: 5 }) => ({
  type: 'message_delta',
  delta: { stop_reason, stop_sequence: null },
  usage,
});
const messageStop = { type: 'message_stop' };

function decode(body: string): Event[] {
  const events = decodeDialectText(anthropicMessages, body);
  assertWellFormed(events);
  return events;
}

function textOf(events: Event[]): string {
  return events.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('');
}

describe('anthropic_messages decoding: bad input', () => {
  it('keeps the partial text when overloaded_error arrives mid-stream', async () => {
    const events = decode(
      sse(start(), textStart(0), textDelta(0, 'Hello'), textDelta(0, ', wor'), {
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      }),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Hello, wor' }]);
    expect(response.error).toMatchObject({ code: 'overloaded', retryable: true });
    expect(response.error?.message).toContain('Overloaded');
    expect(response.finishReason).toBe('error');
    // The text block is closed before the error, the error comes before finish.
    const types = events.map((e) => e.type);
    expect(types.indexOf('text-end')).toBeLessThan(types.indexOf('error'));
  });

  it.each([
    ['rate_limit_error', 'Rate limited', 'rate_limited', true],
    ['api_error', 'Internal server error', 'server_error', true],
    ['invalid_request_error', 'messages: text content blocks must be non-empty', 'invalid_request', false],
    ['invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum', 'context_length_exceeded', false],
    ['authentication_error', 'invalid x-api-key', 'authentication', false],
    ['permission_error', 'not allowed', 'permission', false],
    ['not_found_error', 'model not found', 'not_found', false],
    ['timeout_error', 'timed out', 'timeout', true],
    ['some_new_error', 'who knows', 'unknown', false],
  ])('maps %s (%s) to %s', async (type, message, code, retryable) => {
    const events = decode(sse(start(), { type: 'error', error: { type, message } }));
    const response = await collectResponse(events);
    expect(response.error).toMatchObject({ code, retryable });
    expect(response.finishReason).toBe('error');
  });

  it('reports an error event sent before message_start', async () => {
    const response = await collectResponse(decode(sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })));
    expect(response.error?.code).toBe('overloaded');
  });

  it('reports invalid JSON as invalid_response and keeps what arrived', async () => {
    const events = decode(sse(start(), textStart(0), textDelta(0, 'kept'), 'event: content_block_delta\ndata: {"type":"content_bl', messageStop));
    const response = await collectResponse(events);
    expect(textOf(events)).toBe('kept');
    expect(response.error?.code).toBe('invalid_response');
    expect(response.finishReason).toBe('error');
  });

  it('reports a malformed known event as invalid_response', async () => {
    const events = decode(sse(start(), { type: 'content_block_start', index: 0 }));
    expect((await collectResponse(events)).error?.code).toBe('invalid_response');
  });

  it('ignores unknown event, block and delta types and pings', async () => {
    const events = decode(
      sse(
        start(),
        { type: 'ping' },
        { type: 'brand_new_event', whatever: 1 },
        { type: 'content_block_start', index: 0, content_block: { type: 'hologram', data: 'x' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'hologram_delta', data: 'y' } },
        stop(0),
        textStart(1),
        { type: 'content_block_delta', index: 1, delta: { type: 'future_delta', x: 1 } },
        textDelta(1, 'fine'),
        stop(1),
        messageDelta('end_turn'),
        messageStop,
      ),
    );
    const response = await collectResponse(events);
    expect(response.error).toBeUndefined();
    expect(response.finishReason).toBe('stop');
    expect(response.message.parts).toEqual([{ type: 'text', text: 'fine' }]);
  });

  it('reports a stream cut after message_delta (no message_stop) as invalid_response, keeping the text', async () => {
    const events = decode(sse(start(), textStart(0), textDelta(0, 'almost'), stop(0), messageDelta('end_turn')));
    const response = await collectResponse(events);
    expect(textOf(events)).toBe('almost');
    expect(response.error?.code).toBe('invalid_response');
    expect(response.finishReason).toBe('error');
  });

  it('keeps partial tool arguments when the transport fails', async () => {
    const decoder = anthropicMessages.createDecoder();
    const out: Event[] = [];
    const push = (p: object) => out.push(...decoder.push({ event: (p as { type: string }).type, data: JSON.stringify(p) }));
    push(start());
    push({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } });
    push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a": 1' } });
    out.push(...decoder.fail({ code: 'network', message: 'socket hang up' }));
    assertWellFormed(out);
    const response = await collectResponse(out);
    expect(response.error?.code).toBe('network');
    expect(response.message.parts[0]).toMatchObject({ type: 'tool-call', id: 'toolu_1', name: 'f', input: '{"a": 1' });
  });
});

describe('anthropic_messages decoding: content', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool-calls'],
    ['pause_turn', 'pause'],
    ['refusal', 'refusal'],
    ['something_new', 'other'],
  ])('maps stop_reason %s to %s', async (raw, reason) => {
    const response = await collectResponse(decode(sse(start(), messageDelta(raw), messageStop)));
    expect(response.finishReason).toBe(reason);
    expect(response.rawFinishReason).toBe(raw);
  });

  it('counts cache reads and writes in inputTokens and keeps unreported fields undefined', async () => {
    const events = decode(
      sse(
        start({ input_tokens: 12, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 1 }),
        messageDelta('end_turn', { output_tokens: 40, output_tokens_details: { thinking_tokens: 25 } }),
        messageStop,
      ),
    );
    const response = await collectResponse(events);
    expect(response.usage).toEqual({
      inputTokens: 1212,
      outputTokens: 40,
      cacheReadTokens: 1000,
      cacheWriteTokens: 200,
      reasoningTokens: 25,
    });
    const bare = await collectResponse(decode(sse(start({ input_tokens: 7, output_tokens: 1 }), messageDelta('end_turn'), messageStop)));
    expect(bare.usage).toEqual({ inputTokens: 7, outputTokens: 5 });
  });

  it('keeps the thinking signature on reasoning-end and in providerState', async () => {
    const events = decode(
      sse(
        start(),
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-abc' } },
        stop(0),
        messageDelta('end_turn'),
        messageStop,
      ),
    );
    expect(events.find((e) => e.type === 'reasoning-end')).toEqual({
      type: 'reasoning-end',
      id: 'r0',
      signature: 'sig-abc',
      providerState: { anthropic_messages: { signature: 'sig-abc' } },
    });
  });

  it('turns a compaction block into a compaction part (not reasoning), kept on a cut stream too', async () => {
    const compaction = (index: number) => ({ type: 'content_block_start', index, content_block: { type: 'compaction', content: null } });
    const delta = (index: number, content: string) => ({ type: 'content_block_delta', index, delta: { type: 'compaction_delta', content, encrypted_content: 'enc_meta' } });
    const body = sse(start(), compaction(0), delta(0, 'Summary of '), delta(0, 'the turns.'), stop(0), textStart(1), textDelta(1, 'Hi'), stop(1), messageDelta('end_turn'), messageStop);
    const response = await collectResponse(decode(body));
    expect(response.message.parts).toEqual([
      { type: 'compaction', text: 'Summary of the turns.', providerState: { anthropic_messages: { type: 'compaction', encryptedContent: 'enc_meta' } } },
      { type: 'text', text: 'Hi' },
    ]);
    const cut = await collectResponse(decode(sse(start(), compaction(0), delta(0, 'Summary so far'))));
    expect(cut.message.parts).toEqual([{ type: 'compaction', text: 'Summary so far', providerState: { anthropic_messages: { type: 'compaction', encryptedContent: 'enc_meta' } } }]);
    expect(cut.error?.code).toBe('invalid_response');
    // Sent back to Anthropic as the block it was.
    const next = anthropicMessages.encodeRequest({ model: 'claude-sonnet-4-5', messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'x' }] }, { ...response.message, id: 'a' }, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'y' }] }] }) as Record<string, any>;
    expect(next.messages[1].content[0]).toEqual({ type: 'compaction', content: 'Summary of the turns.', encrypted_content: 'enc_meta' });
  });

  it('turns redacted_thinking into a redacted reasoning part holding its data', async () => {
    const events = decode(
      sse(start(), { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'opaque==' } }, stop(0), messageDelta('end_turn'), messageStop),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([
      { type: 'reasoning', text: '', redacted: true, providerState: { anthropic_messages: { redactedData: 'opaque==' } } },
    ]);
  });

  it('emits one source per cited URL', async () => {
    const citation = (url: string, title: string) => ({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'citations_delta', citation: { type: 'web_search_result_location', url, title, cited_text: 'x', encrypted_index: 'e' } },
    });
    const events = decode(
      sse(start(), textStart(0), citation('https://a.example', 'A'), textDelta(0, 'A says'), citation('https://a.example', 'A'), citation('https://b.example', 'B'), stop(0), messageDelta('end_turn'), messageStop),
    );
    expect(events.filter((e) => e.type === 'source')).toEqual([
      { type: 'source', url: 'https://a.example', title: 'A' },
      { type: 'source', url: 'https://b.example', title: 'B' },
    ]);
  });

  it('gives a tool call without argument fragments the input {} (or the input sent whole)', async () => {
    const events = decode(
      sse(
        start(),
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_a', name: 'noArgs', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
        stop(0),
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_b', name: 'whole', input: { city: 'Oslo' } } },
        stop(1),
        messageDelta('tool_use'),
        messageStop,
      ),
    );
    const response = await collectResponse(events);
    expect(response.message.parts.map((p) => (p.type === 'tool-call' ? [p.name, p.input] : p))).toEqual([
      ['noArgs', {}],
      ['whole', { city: 'Oslo' }],
    ]);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('marks server tool calls and their results as provider-executed, with errors flagged', async () => {
    const events = decode(
      sse(
        start(),
        { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } },
        stop(0),
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } },
        },
        stop(1),
        messageDelta('end_turn'),
        messageStop,
      ),
    );
    expect(events.find((e) => e.type === 'tool-call-start')).toMatchObject({ providerExecuted: true, name: 'web_search' });
    expect(events.find((e) => e.type === 'tool-result')).toEqual({
      type: 'tool-result',
      toolCallId: 'srvtoolu_1',
      name: 'web_search',
      output: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
      isError: true,
      providerExecuted: true,
      providerState: { anthropic_messages: { type: 'web_search_tool_result' } },
    });
  });

  it('keeps text whose delta arrives before its block start', async () => {
    const events = decode(sse(start(), textDelta(0, 'early'), stop(0), messageDelta('end_turn'), messageStop));
    expect((await collectResponse(events)).message.parts).toEqual([{ type: 'text', text: 'early' }]);
  });

  it('stops at message_stop: trailing pings and a second response are not part of this one', async () => {
    const events = decode(
      sse(start(), textStart(0), textDelta(0, 'one'), stop(0), messageDelta('end_turn'), messageStop, { type: 'ping' }, start(), textStart(0), textDelta(0, 'two')),
    );
    expect(textOf(events)).toBe('one');
    expect(events.filter((e) => e.type === 'message-start')).toHaveLength(1);
  });
});

const decodeCut = (body: string) => decodeAtCuts(anthropicMessages, body);

/** Base64 of a JSON payload, as Bedrock wraps each event. */
const b64 = (payload: object) => btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(payload))));

describe('anthropic_messages decoding: variants seen in the wild', () => {
  it('decodes content that arrives whole in message_start, with the stop reason it carries', async () => {
    // A resumed turn: results and a call already complete, no content_block events, then message_stop.
    const resumed = {
      type: 'message_start',
      message: {
        id: 'msg_resumed',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [
          { type: 'text', text: 'Checked é.', citations: [{ type: 'web_search_result_location', url: 'https://a.example', title: 'A', cited_text: 'x' }] },
          { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'code_execution_result', stdout: 'ok\n', stderr: '', return_code: 0 } },
          { type: 'tool_use', id: 'toolu_9', name: 'lookup', input: { id: 'c_1' } },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 4 },
      },
    };
    const events = await decodeCut(sse(resumed, messageStop));
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([
      { type: 'text', text: 'Checked é.' },
      { type: 'source', url: 'https://a.example', title: 'A' },
      expect.objectContaining({ type: 'tool-result', toolCallId: 'srvtoolu_1', providerExecuted: true, output: expect.objectContaining({ stdout: 'ok\n' }) }),
      { type: 'tool-call', id: 'toolu_9', name: 'lookup', input: { id: 'c_1' } },
    ]);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.rawFinishReason).toBe('tool_use');
    expect(response.error).toBeUndefined();
  });

  it('keeps streamed blocks apart from blocks that arrived whole in message_start', async () => {
    const head = start();
    const resumed = { ...head, message: { ...head.message, content: [{ type: 'text', text: 'Before. ' }] } };
    const events = await decodeCut(sse(resumed, textStart(0), textDelta(0, 'After.'), stop(0), messageDelta('end_turn'), messageStop));
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([
      { type: 'text', text: 'Before. ' },
      { type: 'text', text: 'After.' },
    ]);
    expect(response.finishReason).toBe('stop');
  });

  it('unwraps Bedrock chunks whose events are base64-encoded in `bytes`', async () => {
    const body = [
      start(),
      textStart(0),
      textDelta(0, 'Grüße'),
      stop(0),
      messageDelta('end_turn', { output_tokens: 7 }),
      { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 10, outputTokenCount: 7, invocationLatency: 500, firstByteLatency: 200 } },
    ]
      .map((event, i) => `data: ${JSON.stringify(i % 2 === 0 ? { bytes: b64(event) } : { chunk: { bytes: b64(event) } })}\n\n`)
      .join('');
    const response = await collectResponse(await decodeCut(body));
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Grüße' }]);
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 7 });
    expect(response.finishReason).toBe('stop');
    expect(response.error).toBeUndefined();
  });

  it.each([
    ['throttlingException', 'rate_limited', true],
    ['modelStreamErrorException', 'server_error', true],
    ['validationException', 'invalid_request', false],
  ])('reports a Bedrock %s mid-stream as %s, keeping the text', async (name, code, retryable) => {
    const asKey = sse(start(), textStart(0), textDelta(0, 'Part'), `data: ${JSON.stringify({ [name]: { message: 'Too many requests' } })}`);
    const asEvent = sse(start(), textStart(0), textDelta(0, 'Part'), `event: ${name}\ndata: ${JSON.stringify({ message: 'Too many requests' })}`);
    for (const body of [asKey, asEvent]) {
      const response = await collectResponse(await decodeCut(body));
      expect(response.message.parts).toEqual([{ type: 'text', text: 'Part' }]);
      expect(response.error).toMatchObject({ code, retryable });
      expect(response.error?.message).toContain(name);
      expect(response.finishReason).toBe('error');
    }
  });

  it('maps a Vertex AI error in the google.rpc.Status shape by its status', async () => {
    const quota = { error: { code: 429, message: 'Quota exceeded for aiplatform.googleapis.com', status: 'RESOURCE_EXHAUSTED' } };
    const events = await decodeCut(sse(start(), textStart(0), textDelta(0, 'Hi'), `data: ${JSON.stringify(quota)}`));
    const response = await collectResponse(events);
    expect(textOf(events)).toBe('Hi');
    expect(response.error).toMatchObject({ code: 'rate_limited', retryable: true, status: 429 });
    expect(response.error?.message).toContain('Quota exceeded');
  });

  it('reports a Bedrock chunk holding invalid base64 JSON as invalid_response', async () => {
    const response = await collectResponse(await decodeCut(sse(start(), `data: ${JSON.stringify({ bytes: btoa('{"type":') })}`)));
    expect(response.error?.code).toBe('invalid_response');
  });
});
