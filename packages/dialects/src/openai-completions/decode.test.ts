/**
 * The decoder on hand-built streams: bad input (invalid JSON, unknown events, cuts,
 * provider errors) and the shapes the recordings do not show (several calls,
 * refusals, content-filter, array content). Each stream is built from chunk objects
 * as the API documents them.
 */
import { collectResponse, type Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { assertWellFormed, decodeAtCuts } from '../../test/conformance.ts';
import { decodeDialectText } from '../decode-stream.ts';
import type { DecoderOptions } from '../types.ts';
import { openaiCompletions } from './index.ts';

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-test' };
const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  ...base,
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
const usageChunk = (usage: Record<string, unknown>) => ({ ...base, choices: [], usage });

/** SSE text: objects become `data: <json>`, strings are sent as they are. */
function sse(...events: (object | string)[]): string {
  return events.map((e) => (typeof e === 'string' ? e : `data: ${JSON.stringify(e)}\n\n`)).join('');
}
const DONE = 'data: [DONE]\n\n';

function decode(text: string, options?: DecoderOptions): Event[] {
  const events = decodeDialectText(openaiCompletions, text, options);
  assertWellFormed(events);
  return events;
}

const errorsOf = (events: Event[]) => events.filter((e) => e.type === 'error');

/** Decodes whole and at 20 random byte cuts, and as text: the events must not change. */
async function decodeEverywhere(text: string): Promise<Event[]> {
  const whole = await decodeAtCuts(openaiCompletions, text);
  expect(whole).toEqual(decode(text));
  return whole;
}

describe('bad input', () => {
  it('reports invalid JSON as invalid_response and keeps the text before it', async () => {
    const events = decode(sse(chunk({ role: 'assistant', content: 'Hello' }), 'data: {"choices": [\n\n', chunk({ content: ' never' })));
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(response.finishReason).toBe('error');
    expect(response.error?.code).toBe('invalid_response');
    expect(response.error?.message).toMatch(/not valid JSON/);
  });

  it('ignores unknown event types, comments and unknown fields', async () => {
    const events = decode(
      sse(
        ': keep-alive\n\n',
        'event: ping\ndata: {"whatever": true}\n\n',
        chunk({ content: 'Hi', audio: null, annotations: [] }, null, { obfuscation: 'x1', service_tier: 'default' }),
        { ...base, choices: [] },
        chunk({}, 'stop'),
        DONE,
      ),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Hi' }]);
    expect(response.finishReason).toBe('stop');
    expect(errorsOf(events)).toEqual([]);
  });

  it('keeps the usage an OpenRouter error chunk carries (what was generated is billed)', async () => {
    const usage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, cost: 0.0002 };
    for (const failure of [
      { ...base, error: { code: 502, message: 'Provider returned error' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }], usage },
      { ...base, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }], usage },
    ]) {
      const response = await collectResponse(await decodeEverywhere(sse(chunk({ content: 'a' }), failure)));
      expect(response.error?.code).toBe('server_error');
      expect(response.usage).toMatchObject({ inputTokens: 12, outputTokens: 3, totalTokens: 15, cost: 0.0002 });
    }
  });

  it('reports a stream cut before any finish_reason', async () => {
    const events = decode(sse(chunk({ content: 'Partial' }), chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{"a"' } }] })));
    const response = await collectResponse(events);
    expect(response.message.parts[0]).toEqual({ type: 'text', text: 'Partial' });
    // The half call is kept (closed, arguments as received) rather than lost.
    expect(response.message.parts[1]).toMatchObject({ type: 'tool-call', id: 'c1', name: 'f', input: '{"a"' });
    expect(response.finishReason).toBe('error');
    expect(response.error?.code).toBe('invalid_response');
  });

  it.each([
    ['an error chunk (OpenAI, vLLM)', sse(chunk({ content: 'a' }), { error: { message: 'The server had an error', type: 'server_error' } }), 'server_error', undefined],
    [
      'an error event (Groq)',
      sse(chunk({ content: 'a' }), 'event: error\ndata: {"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}\n\n'),
      'rate_limited',
      undefined,
    ],
    [
      'an error chunk with an HTTP status as code (OpenRouter)',
      sse(chunk({ content: 'a' }), { ...base, error: { code: 502, message: 'Provider returned error' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] }),
      'server_error',
      502,
    ],
    ['a context overflow', sse(chunk({ content: 'a' }), { error: { message: 'too long', type: 'invalid_request_error', code: 'context_length_exceeded' } }), 'context_length_exceeded', undefined],
    ['an overload', sse(chunk({ content: 'a' }), { error: { message: 'busy', code: 503 } }), 'overloaded', 503],
    ['an error event whose data is not JSON', sse(chunk({ content: 'a' }), 'event: error\ndata: upstream exploded\n\n'), 'server_error', undefined],
    ['finish_reason "error" with no error object', sse(chunk({ content: 'a' }), chunk({}, 'error')), 'server_error', undefined],
    ['finish_reason "insufficient_system_resource" (DeepSeek)', sse(chunk({ content: 'a' }), chunk({}, 'insufficient_system_resource')), 'overloaded', undefined],
    [
      'a top-level error object (older vLLM)',
      sse(chunk({ content: 'a' }), { object: 'error', message: "This model's maximum context length is 4096 tokens.", type: 'BadRequestError', param: null, code: 400 }, DONE),
      'context_length_exceeded',
      400,
    ],
    [
      'an invalid_request_error about the context size (llama.cpp)',
      sse(chunk({ content: 'a' }), { error: { code: 400, message: 'the request exceeds the available context size', type: 'invalid_request_error' } }, DONE),
      'context_length_exceeded',
      400,
    ],
  ])('maps %s to a typed error after what arrived', async (_, text, code, status) => {
    const events = await decodeEverywhere(text);
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([{ type: 'text', text: 'a' }]);
    expect(response.finishReason).toBe('error');
    expect(response.error?.code).toBe(code);
    expect(response.error?.status).toBe(status);
    expect(response.error?.message.length).toBeGreaterThan(0);
  });

  it('keeps the message of a bare {"error": "..."} chunk', async () => {
    const response = await collectResponse(await decodeEverywhere(sse(chunk({ content: 'a' }), { error: 'upstream timed out' }, DONE)));
    expect(response.error).toMatchObject({ code: 'server_error', message: 'upstream timed out' });
  });

  it('reports [DONE] before any chunk as invalid_response (old llama.cpp sends its error on an `error:` line)', async () => {
    const text = 'error: {"code":400,"message":"too long","type":"invalid_request_error"}\n\n' + DONE;
    const response = await collectResponse(await decodeEverywhere(text));
    expect(response.finishReason).toBe('error');
    expect(response.error?.code).toBe('invalid_response');
  });

  it.each([
    ['a chunk that is not an object', 'data: 42\n\n'],
    ['choices that are not an array', sse({ ...base, choices: { 0: {} } })],
    ['a delta that is not an object', sse({ ...base, choices: [{ index: 0, delta: 'hi' }] })],
    ['a tool_calls entry that is not an object', sse(chunk({ tool_calls: [null] }))],
  ])('reports %s as invalid_response without throwing', async (_, text) => {
    const events = decode(sse(chunk({ content: 'ok' })) + text);
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([{ type: 'text', text: 'ok' }]);
    expect(response.error?.code).toBe('invalid_response');
  });

  it('keeps what arrived when the transport fails', async () => {
    const decoder = openaiCompletions.createDecoder();
    const events = [
      ...decoder.push({ data: JSON.stringify(chunk({ content: 'So far' })) }),
      ...decoder.fail({ code: 'network', message: 'socket hang up' }),
    ];
    assertWellFormed(events);
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([{ type: 'text', text: 'So far' }]);
    expect(response.error).toMatchObject({ code: 'network', retryable: true });
    // Nothing after the finish.
    expect(decoder.push({ data: JSON.stringify(chunk({ content: 'late' })) })).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });
});

describe('finishing', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool-calls'],
    ['function_call', 'tool-calls'],
    ['content_filter', 'content-filter'],
    ['sensitive', 'content-filter'],
    ['something_new', 'other'],
  ])('maps finish_reason %s to %s and keeps the raw value', (raw, reason) => {
    const finish = decode(sse(chunk({ content: 'x' }), chunk({}, raw), DONE)).at(-1);
    expect(finish).toMatchObject({ type: 'finish', finishReason: reason, rawFinishReason: raw });
  });

  it("finishes with 'other' on [DONE] without a finish_reason", () => {
    const finish = decode(sse(chunk({ content: 'x' }), DONE)).at(-1);
    expect(finish).toEqual({ type: 'finish', finishReason: 'other', usage: {} });
  });

  it("turns a refusal into text marked in providerState and finishes with 'refusal'", async () => {
    const response = await collectResponse(decode(sse(chunk({ role: 'assistant', refusal: "I'm sorry, " }), chunk({ refusal: 'I cannot help.' }), chunk({}, 'stop'), DONE)));
    expect(response.message.parts).toEqual([{ type: 'text', text: "I'm sorry, I cannot help.", providerState: { openai_completions: { refusal: true } } }]);
    expect(response.finishReason).toBe('refusal');
    expect(response.rawFinishReason).toBe('stop');
  });
});

describe('tool calls', () => {
  it('decodes several calls whose deltas interleave by index', async () => {
    const response = await collectResponse(
      decode(
        sse(
          chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }] }),
          chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{"tz":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: '"CET"}' } }] }),
          chunk({}, 'tool_calls'),
          DONE,
        ),
      ),
    );
    expect(response.message.parts).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool-call', id: 'call_b', name: 'time', input: { tz: 'CET' } },
    ]);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('keeps block ids unique when a provider reuses a call id, and synthesizes ids when asked', () => {
    const text = sse(
      chunk({ tool_calls: [{ index: 0, id: 'call_0', function: { name: 'a', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_0', function: { name: 'b', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      DONE,
    );
    const ids = (events: Event[]) => events.flatMap((e) => (e.type === 'tool-call-start' ? [e.id] : []));
    expect(ids(decode(text))).toEqual(['call_0', 'call_0_1']);
    expect(ids(decode(text, { toolCallIds: 'synthesize' }))).toEqual(['call_0', 'call_1']);
  });

  it('waits for the name before starting a call whose arguments come first', async () => {
    const response = await collectResponse(
      decode(
        sse(
          chunk({ tool_calls: [{ index: 0, id: 'c', function: { arguments: '{"q":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { name: 'search', arguments: '"x"}' } }] }),
          chunk({}, 'tool_calls'),
          DONE,
        ),
      ),
    );
    expect(response.message.parts).toEqual([{ type: 'tool-call', id: 'c', name: 'search', input: { q: 'x' } }]);
  });

  it('reads calls without an index by their id', async () => {
    const response = await collectResponse(
      decode(
        sse(
          chunk({ tool_calls: [{ id: 'x1', function: { name: 'a', arguments: '{"n":1}' } }] }),
          chunk({ tool_calls: [{ id: 'x2', function: { name: 'b', arguments: '{"n":2}' } }] }),
          chunk({}, 'tool_calls'),
          DONE,
        ),
      ),
    );
    expect(response.message.parts.map((p) => (p.type === 'tool-call' ? [p.id, p.input] : p))).toEqual([
      ['x1', { n: 1 }],
      ['x2', { n: 2 }],
    ]);
  });
});

describe('compatible-server variants', () => {
  it('decodes only choice 0 when several choices stream (n > 1), ignoring the others and their finish', async () => {
    const choice = (index: number, delta: object, finish: string | null = null) => ({ ...base, choices: [{ index, delta, finish_reason: finish, logprobs: null }] });
    const events = await decodeEverywhere(
      sse(choice(0, { role: 'assistant', content: '' }), choice(1, { role: 'assistant', content: '' }), choice(1, { content: 'Other' }), choice(0, { content: 'Hello' }), choice(1, {}, 'length'), choice(0, { content: ' there' }), choice(0, {}, 'stop'), DONE),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Hello there' }]);
    expect(response.finishReason).toBe('stop');
  });

  it('starts the message at the first chunk that names it (Azure prompt-filter chunk, delta-less filter chunks)', async () => {
    const filter = { hate: { filtered: false, severity: 'safe' } };
    const events = await decodeEverywhere(
      sse(
        { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: filter }] },
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, content_filter_results: {}, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { content: 'Hey 👋' }, content_filter_results: filter, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        { id: '', model: '', object: '', created: 0, choices: [{ index: 0, finish_reason: null, content_filter_results: filter, content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 9 } }] },
      ),
    );
    expect(events[0]).toEqual({ type: 'message-start', responseId: 'chatcmpl-1', model: 'gpt-test' });
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Hey 👋' }]);
    expect(response.finishReason).toBe('stop');
  });

  it('splits calls that reuse one index under different ids (Ollama OpenAI API) and keeps later fragments on the new call', async () => {
    const call = (id: string | undefined, name: string | undefined, args: string) => chunk({ tool_calls: [{ index: 0, ...(id ? { id, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: args } }] });
    const response = await collectResponse(
      await decodeEverywhere(sse(call('call_a', 'write', '{"path":"a.py"}'), call('call_b', 'write', '{"path":'), call(undefined, undefined, '"b.py"}'), call('call_b', 'write', ''), chunk({}, 'tool_calls'), DONE)),
    );
    expect(response.message.parts).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'write', input: { path: 'a.py' } },
      { type: 'tool-call', id: 'call_b', name: 'write', input: { path: 'b.py' } },
    ]);
  });

  it('turns url_citation annotations into one source per URL', async () => {
    const cite = (url: string, title: string) => ({ type: 'url_citation', url_citation: { url, title, start_index: 0, end_index: 5 } });
    const events = await decodeEverywhere(
      sse(chunk({ role: 'assistant', content: 'Aid resumed.', annotations: [] }), chunk({ annotations: [cite('https://a.example/1', 'A'), cite('https://a.example/1', 'A'), { type: 'file_citation' }] }), chunk({ annotations: [cite('https://b.example/2', '')] }, 'stop'), DONE),
    );
    expect(events.filter((e) => e.type === 'source')).toEqual([
      { type: 'source', url: 'https://a.example/1', title: 'A' },
      { type: 'source', url: 'https://b.example/2' },
    ]);
    expect((await collectResponse(events)).finishReason).toBe('stop');
  });

  it('does not take finish_reason "null" (a string) as a finish', async () => {
    const response = await collectResponse(await decodeEverywhere(sse(chunk({ content: 'Hal' }, 'null'), chunk({ content: 'f' }))));
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Half' }]);
    expect(response.error?.code).toBe('invalid_response');
  });
});

describe('content and reasoning shapes', () => {
  it('reads array content with thinking parts (Mistral reasoning models)', async () => {
    const response = await collectResponse(
      decode(
        sse(
          chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Let me think.' }] }] }),
          chunk({ content: [{ type: 'text', text: 'Answer.' }] }),
          chunk({}, 'stop'),
          DONE,
        ),
      ),
    );
    expect(response.message.parts.map((p) => [p.type, 'text' in p ? p.text : ''])).toEqual([
      ['reasoning', 'Let me think.'],
      ['text', 'Answer.'],
    ]);
  });

  it('keeps an encrypted reasoning detail that arrives after the text as a redacted part of its own', async () => {
    const blob = { type: 'reasoning.encrypted', data: 'gAAA', id: 'rs_1', format: 'openai-responses-v1', index: 0 };
    const response = await collectResponse(
      decode(sse(chunk({ reasoning: 'Hmm', reasoning_details: [{ type: 'reasoning.text', text: 'Hmm', index: 0 }] }), chunk({ content: 'Hi' }), chunk({ reasoning_details: [blob] }), chunk({}, 'stop'), DONE)),
    );
    expect(response.message.parts).toEqual([
      { type: 'reasoning', text: 'Hmm', providerState: { openai_completions: { field: 'reasoning', reasoningDetails: [{ type: 'reasoning.text', text: 'Hmm', index: 0 }] } } },
      { type: 'text', text: 'Hi' },
      { type: 'reasoning', text: '', redacted: true, providerState: { openai_completions: { reasoningDetails: [blob] } } },
    ]);
  });

  it('merges signed reasoning.text fragments by index', async () => {
    const response = await collectResponse(
      decode(
        sse(
          chunk({ reasoning_details: [{ type: 'reasoning.text', text: 'Step 1. ', index: 0, format: 'anthropic-claude-v1' }] }),
          chunk({ reasoning_details: [{ type: 'reasoning.text', text: 'Step 2.', index: 0 }] }),
          chunk({ reasoning_details: [{ type: 'reasoning.text', text: '', signature: 'sig', index: 0 }] }),
          chunk({ content: 'Done' }, 'stop'),
          DONE,
        ),
      ),
    );
    expect(response.message.parts[0]).toEqual({
      type: 'reasoning',
      text: 'Step 1. Step 2.',
      providerState: {
        openai_completions: {
          field: 'reasoning_details',
          reasoningDetails: [{ type: 'reasoning.text', text: 'Step 1. Step 2.', index: 0, format: 'anthropic-claude-v1', signature: 'sig' }],
        },
      },
    });
  });

  it('reads usage from x_groq when the top-level usage is missing (older Groq)', () => {
    const finish = decode(sse(chunk({ content: 'x' }), chunk({}, 'stop', { x_groq: { id: 'req', usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } } }), DONE)).at(-1);
    expect(finish).toMatchObject({ usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } });
  });

  it('maps DeepSeek prompt_cache_hit_tokens to cacheReadTokens', () => {
    const finish = decode(sse(chunk({ content: 'x' }, 'stop'), usageChunk({ prompt_tokens: 100, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36, completion_tokens: 5, total_tokens: 105 }), DONE)).at(-1);
    expect(finish).toMatchObject({ usage: { inputTokens: 100, cacheReadTokens: 64, outputTokens: 5, totalTokens: 105 } });
  });

  // llama.cpp's server: `timings` on the last chunk (the finish chunk, or the usage chunk with include_usage).
  const timings = { cache_n: 290, prompt_n: 120, prompt_ms: 900, predicted_n: 40, predicted_ms: 2000 };
  const usage = { prompt_tokens: 410, completion_tokens: 40, total_tokens: 450 };
  it.each([
    ['on the usage chunk', sse(chunk({ content: 'x' }, 'stop'), { ...usageChunk(usage), timings }, DONE), { inputTokens: 410, cacheReadTokens: 290, outputTokens: 40 }],
    ['on the finish chunk, usage after it', sse(chunk({ content: 'x' }, 'stop', { timings }), usageChunk(usage), DONE), { inputTokens: 410, cacheReadTokens: 290, outputTokens: 40 }],
    ['with no usage at all', sse(chunk({ content: 'x' }, 'stop', { timings }), DONE), { cacheReadTokens: 290 }],
    ['a cache miss', sse(chunk({ content: 'x' }, 'stop'), { ...usageChunk(usage), timings: { ...timings, cache_n: 0 } }, DONE), { inputTokens: 410, cacheReadTokens: 0 }],
    [
      'beside cached_tokens (which wins)',
      sse(chunk({ content: 'x' }, 'stop'), { ...usageChunk({ ...usage, prompt_tokens_details: { cached_tokens: 288 } }), timings }, DONE),
      { inputTokens: 410, cacheReadTokens: 288 },
    ],
  ])('maps llama.cpp timings.cache_n to cacheReadTokens %s', (_name, text, expected) => {
    expect(decode(text).at(-1)).toMatchObject({ type: 'finish', usage: expected });
  });

  it('reads timings.cache_n from a whole (non-streamed) llama.cpp body too', () => {
    const body = { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }], usage, timings };
    const decoder = openaiCompletions.createDecoder();
    const events = [...(openaiCompletions.replayBody?.(body) ?? []).flatMap((wire) => decoder.push(wire)), ...decoder.end()];
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: 410, cacheReadTokens: 290 } });
  });
});

describe('finish reason after tool calls', () => {
  it('reports tool-calls when a server says "stop" after streaming tool calls (vLLM, llama.cpp)', async () => {
    const body = [
      'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_time","arguments":""}}]}}]}\n\n',
      'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"tz\\":\\"UTC\\"}"}}]}}]}\n\n',
      'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
      'data: [DONE]\n\n',
    ].join('');
    const response = await collectResponse(decodeDialectText(openaiCompletions, body));
    expect(response.finishReason).toBe('tool-calls');
    expect(response.rawFinishReason).toBe('stop');
    expect(response.message.parts).toEqual([{ type: 'tool-call', id: 'call_1', name: 'get_time', input: { tz: 'UTC' } }]);
  });
});
