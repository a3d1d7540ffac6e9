import { collectResponse, type Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { decodeAtCuts, decodeChunks, loadFixtures } from '../../test/conformance.ts';
import { decodeDialectText } from '../decode-stream.ts';
import { googleGemini } from './index.ts';

const sse = (...payloads: unknown[]) => payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');
const decode = (...payloads: unknown[]) => decodeDialectText(googleGemini, sse(...payloads));
const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
  responseId: 'r1',
  modelVersion: 'gemini-2.5-flash',
});
const fixtures = loadFixtures('google_gemini');
const fixture = (name: string) => fixtures.find((f) => f.name.includes(name))!;

function deltasById(events: Event[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events) if (e.type === 'tool-call-delta') out.set(e.id, (out.get(e.id) ?? '') + e.delta);
  return out;
}

describe('google_gemini decoder', () => {
  it('streams tool-call deltas that concatenate to the call input, for every recording', async () => {
    for (const f of fixtures) {
      const events = await decodeChunks(googleGemini, [f.bytes]);
      const deltas = deltasById(events);
      for (const e of events) {
        if (e.type !== 'tool-call-end') continue;
        expect(JSON.parse(deltas.get(e.id) ?? '{}'), `${f.name} ${e.id}`).toEqual(e.input);
      }
    }
  });

  it('finalizes a streamed call whose last partial argument omits willContinue', async () => {
    const f = fixture('missing-terminal-function-call');
    const response = await collectResponse(await decodeChunks(googleGemini, [f.bytes]));
    const call = response.message.parts.find((p) => p.type === 'tool-call');
    expect(call).toMatchObject({
      name: 'writeItems',
      input: {
        operations: [
          { action: 'add', description: 'Fresh red apple', itemid: 'apple_001', price: 0.5 },
          { action: 'add', description: 'Ripe yellow banana', itemid: 'banana_001', price: 0.3 },
        ],
      },
    });
    expect(response.finishReason).toBe('tool-calls');
    // The signature that came on the call's first part is kept for the round trip.
    const signature = f.payloads[0]!.data.candidates[0].content.parts[0].thoughtSignature;
    expect(call?.providerState).toEqual({ google_gemini: { thoughtSignature: signature } });
  });

  it('keeps the signature of a trailing empty text part on the text part it belongs to', async () => {
    const f = fixture('google-text.chunks');
    const response = await collectResponse(await decodeChunks(googleGemini, [f.bytes]));
    const signature = f.payloads[2]!.data.candidates[0].content.parts[0].thoughtSignature;
    expect(response.message.parts).toHaveLength(1);
    expect(response.message.parts[0]).toMatchObject({ type: 'text', providerState: { google_gemini: { thoughtSignature: signature } } });
    expect(response.id).toBe(f.payloads[0]!.data.responseId);
    expect(response.model).toBe('gemini-3-pro-preview');
  });

  it('reads thoughts, a no-argument call and streamed calls with stable positional ids', async () => {
    const response = await collectResponse(await decodeChunks(googleGemini, [fixture('no-args-tool-call').bytes]));
    const parts = response.message.parts;
    expect(parts[0]).toMatchObject({ type: 'reasoning' });
    expect((parts[0] as { text: string }).text).toContain('Processing User Requests');
    const calls = parts.filter((p) => p.type === 'tool-call');
    expect(calls.map((c) => [c.id, c.name, c.input])).toEqual([
      ['call_0', 'read_theme', {}],
      ['call_1', 'read_screen', { id: 'A' }],
      ['call_2', 'read_screen', { id: 'B' }],
      ['call_3', 'read_screen', { id: 'C' }],
    ]);
    expect(calls[0]!.providerState?.google_gemini).toHaveProperty('thoughtSignature');
    expect(calls[1]!.providerState).toBeUndefined();
  });

  it('keeps the latest signature per block and puts a thought signature on reasoning-end', () => {
    const events = decode(
      chunk([{ text: 'Let me think', thought: true }]),
      chunk([{ text: ' harder', thought: true, thoughtSignature: 'sig-a' }]),
      chunk([{ text: '', thought: true, thoughtSignature: 'sig-b' }]),
      chunk([{ text: 'Answer', thoughtSignature: 'sig-c' }]),
      chunk([{ text: '!', thoughtSignature: 'sig-d' }], { finishReason: 'STOP' }),
    );
    const reasoningEnd = events.find((e) => e.type === 'reasoning-end');
    expect(reasoningEnd).toMatchObject({ signature: 'sig-b', providerState: { google_gemini: { thoughtSignature: 'sig-b' } } });
    expect(events.find((e) => e.type === 'text-end')).toMatchObject({ providerState: { google_gemini: { thoughtSignature: 'sig-d' } } });
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', rawFinishReason: 'STOP' });
  });

  it('uses a function call id the API sends, and keeps it for the response', async () => {
    const events = decode(chunk([{ functionCall: { id: 'fc-9', name: 'f', args: { a: 1 } } }], { finishReason: 'STOP' }));
    const response = await collectResponse(events);
    expect(response.message.parts[0]).toMatchObject({ type: 'tool-call', id: 'fc-9', input: { a: 1 }, providerState: { google_gemini: { id: 'fc-9' } } });
  });

  it('maps usage: thoughts count as output and as reasoning, cached tokens as cache reads', async () => {
    const events = decode(
      chunk([{ text: 'hi' }], { finishReason: 'STOP' }),
      // usage arriving in its own chunk after the finish reason still counts
      { usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 80, candidatesTokenCount: 5, thoughtsTokenCount: 20, totalTokenCount: 125 } },
    );
    expect((await collectResponse(events)).usage).toEqual({
      inputTokens: 100,
      cacheReadTokens: 80,
      outputTokens: 25,
      reasoningTokens: 20,
      totalTokens: 125,
    });
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['RECITATION', 'content-filter'],
    ['PROHIBITED_CONTENT', 'content-filter'],
    ['OTHER', 'other'],
    ['SOMETHING_NEW', 'other'],
  ])('maps finishReason %s to %s', async (raw, reason) => {
    const response = await collectResponse(decode(chunk([{ text: 'x' }], { finishReason: raw })));
    expect(response.finishReason).toBe(reason);
    expect(response.rawFinishReason).toBe(raw);
    expect(response.error).toBeUndefined();
  });

  it('ends a malformed function call as an error, keeping the text', async () => {
    const response = await collectResponse(decode(chunk([{ text: 'Calling' }]), chunk([], { finishReason: 'MALFORMED_FUNCTION_CALL' })));
    expect(response.finishReason).toBe('error');
    expect(response.rawFinishReason).toBe('MALFORMED_FUNCTION_CALL');
    expect(response.error).toMatchObject({ code: 'invalid_response', retryable: true });
    expect(response.message.parts[0]).toMatchObject({ text: 'Calling' });
  });

  it('reports a prompt blocked before any candidate as content-filter', async () => {
    const response = await collectResponse(
      decode({ promptFeedback: { blockReason: 'SAFETY', safetyRatings: [] }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 } }),
    );
    expect(response.finishReason).toBe('content-filter');
    expect(response.rawFinishReason).toBe('SAFETY');
    expect(response.usage).toEqual({ inputTokens: 7, totalTokens: 7 });
  });

  it('turns grounding chunks into deduplicated sources', () => {
    const grounding = {
      groundingChunks: [{ web: { uri: 'https://a.example', title: 'A' } }, { web: { uri: 'https://a.example', title: 'A' } }, { retrievedContext: { uri: 'gs://b' } }],
    };
    const events = decode(chunk([{ text: 'Cited.' }], { finishReason: 'STOP', groundingMetadata: grounding }));
    expect(events.filter((e) => e.type === 'source')).toEqual([
      { type: 'source', url: 'https://a.example', title: 'A' },
      { type: 'source', url: 'gs://b' },
    ]);
  });

  it('decodes code execution as a provider-executed call and result', async () => {
    const response = await collectResponse(
      decode(
        chunk([{ executableCode: { language: 'PYTHON', code: 'print(1)' } }]),
        chunk([{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } }, { text: 'It printed 1.' }], { finishReason: 'STOP' }),
      ),
    );
    expect(response.message.parts.map((p) => p.type)).toEqual(['tool-call', 'tool-result', 'text']);
    expect(response.message.parts[0]).toMatchObject({ providerExecuted: true, name: 'code_execution', input: { code: 'print(1)' } });
    expect(response.message.parts[1]).toMatchObject({ providerExecuted: true, toolCallId: 'code_0', output: { output: '1\n' } });
    expect(response.finishReason).toBe('stop');
  });
});

describe('google_gemini bad input', () => {
  it('reports invalid JSON as invalid_response after what arrived', async () => {
    const events = decodeDialectText(googleGemini, sse(chunk([{ text: 'Hello' }]), '{"candidates": [', chunk([{ text: ' more' }])));
    const response = await collectResponse(events);
    expect(response.message.parts[0]).toMatchObject({ type: 'text', text: 'Hello' });
    expect(response.error?.code).toBe('invalid_response');
    expect(response.finishReason).toBe('error');
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
  });

  it('ignores unknown fields and part kinds', async () => {
    const response = await collectResponse(
      decode(
        { ...chunk([{ text: 'a' }, { videoMetadata: { fps: 1 } }, { somethingNew: true }]), newTopLevel: { x: 1 } },
        chunk([{ text: 'b' }], { finishReason: 'STOP', avgLogprobs: -0.1 }),
      ),
    );
    expect(response.message.parts).toEqual([{ type: 'text', text: 'ab' }]);
    expect(response.finishReason).toBe('stop');
  });

  it('reports a stream cut before its finish reason, keeping a half-streamed call', async () => {
    const response = await collectResponse(
      decode(
        chunk([{ text: 'Sure' }]),
        chunk([{ functionCall: { name: 'search', willContinue: true } }]),
        chunk([{ functionCall: { partialArgs: [{ jsonPath: '$.q', stringValue: 'cats', willContinue: true }], willContinue: true } }]),
      ),
    );
    expect(response.finishReason).toBe('error');
    expect(response.error?.code).toBe('invalid_response');
    expect(response.message.parts[1]).toMatchObject({ type: 'tool-call', name: 'search', input: { q: 'cats' } });
  });

  it.each([
    [{ code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded' }, 'rate_limited', 429],
    [{ code: 503, status: 'UNAVAILABLE', message: 'The model is overloaded.' }, 'overloaded', 503],
    [{ code: 500, status: 'INTERNAL', message: 'An internal error has occurred.' }, 'server_error', 500],
    [{ code: 400, status: 'INVALID_ARGUMENT', message: 'The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).' }, 'context_length_exceeded', 400],
    [{ code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received.' }, 'invalid_request', 400],
    [{ code: 403, message: 'denied' }, 'permission', 403],
  ])('maps an error payload mid-stream (%j) to %s', async (error, code, status) => {
    const events = decode(chunk([{ text: 'Partial' }]), { error });
    const response = await collectResponse(events);
    expect(response.error).toMatchObject({ code, status });
    expect(response.finishReason).toBe('error');
    expect(response.message.parts[0]).toMatchObject({ text: 'Partial' });
  });

  it('rejects streamed arguments with no call open and an unsupported path', async () => {
    const orphan = await collectResponse(decode(chunk([{ functionCall: { partialArgs: [{ jsonPath: '$.a', numberValue: 1 }] } }])));
    expect(orphan.error?.code).toBe('invalid_response');
    const badPath = await collectResponse(
      decode(chunk([{ functionCall: { name: 'f', willContinue: true } }]), chunk([{ functionCall: { partialArgs: [{ jsonPath: 'a..b', numberValue: 1 }] } }])),
    );
    expect(badPath.error?.code).toBe('invalid_response');
  });

  it('never throws on absurd payloads', () => {
    for (const payload of ['null', '42', '"text"', '[1,2]', '{"candidates": "x"}', '{"candidates": [null, {"content": 5}]}']) {
      const events = decodeDialectText(googleGemini, `data: ${payload}\n\n`);
      expect(events.at(-1)?.type).toBe('finish');
    }
  });
});

const decodeCut = (...payloads: unknown[]) => decodeAtCuts(googleGemini, sse(...payloads));

describe('google_gemini decoding: variants seen in the wild', () => {
  it('counts tool-use prompt tokens (grounding, URL context) as input', async () => {
    const usageMetadata = {
      promptTokenCount: 17,
      toolUsePromptTokenCount: 308,
      toolUsePromptTokensDetails: [{ modality: 'TEXT', tokenCount: 308 }],
      candidatesTokenCount: 37,
      thoughtsTokenCount: 333,
      totalTokenCount: 695,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 17 }],
    };
    const response = await collectResponse(await decodeCut(chunk([{ text: 'Grounded.' }], { finishReason: 'STOP' }), { usageMetadata }));
    expect(response.usage).toEqual({ inputTokens: 325, outputTokens: 370, reasoningTokens: 333, totalTokens: 695 });
    // What is reported adds up to Gemini's own total.
    expect(response.usage.inputTokens! + response.usage.outputTokens!).toBe(response.usage.totalTokens);
  });

  it('keeps the signature and the draft mark of generated images, and files sent by URI', async () => {
    const response = await collectResponse(
      await decodeCut(
        chunk([{ text: 'Sketching…', thought: true }]),
        chunk([{ inlineData: { mimeType: 'image/png', data: 'ZHJhZnQ=' }, thought: true }]),
        chunk([{ inlineData: { mimeType: 'image/jpeg', data: 'ZmluYWw=' }, thoughtSignature: 'sig-image' }]),
        chunk([{ fileData: { mimeType: 'video/mp4', fileUri: 'gs://bucket/clip.mp4' } }, { text: '' }], { finishReason: 'STOP' }),
      ),
    );
    expect(response.message.parts).toEqual([
      { type: 'reasoning', text: 'Sketching…' },
      { type: 'file', mediaType: 'image/png', data: 'ZHJhZnQ=', providerState: { google_gemini: { thought: true } } },
      { type: 'file', mediaType: 'image/jpeg', data: 'ZmluYWw=', providerState: { google_gemini: { thoughtSignature: 'sig-image' } } },
      { type: 'file', mediaType: 'video/mp4', url: 'gs://bucket/clip.mp4' },
    ]);
    expect(response.finishReason).toBe('stop');
  });

  it('turns citation metadata of the Gemini API and of Vertex AI into deduplicated sources', async () => {
    const events = await decodeCut(
      chunk([{ text: 'Recited ' }], { citationMetadata: { citationSources: [{ startIndex: 0, endIndex: 8, uri: 'https://a.example', license: '' }] } }),
      chunk([{ text: 'text.' }], {
        finishReason: 'STOP',
        citationMetadata: { citations: [{ startIndex: 0, endIndex: 5, uri: 'https://a.example' }, { uri: 'https://b.example', title: 'B' }, { license: 'mit' }] },
      }),
    );
    const response = await collectResponse(events);
    expect(response.message.parts).toEqual([
      { type: 'text', text: 'Recited text.' },
      { type: 'source', url: 'https://a.example' },
      { type: 'source', url: 'https://b.example', title: 'B' },
    ]);
  });

  it('pairs code execution parts by their ids and keeps their signatures', async () => {
    const response = await collectResponse(
      await decodeCut(
        chunk([{ executableCode: { id: 'exec_a', language: 'PYTHON', code: 'print(1)' }, thoughtSignature: 'sig-code' }]),
        chunk([{ executableCode: { id: 'exec_b', language: 'PYTHON', code: 'print(2)' } }]),
        chunk([{ codeExecutionResult: { id: 'exec_a', outcome: 'OUTCOME_OK', output: '1\n' } }]),
        chunk([{ codeExecutionResult: { id: 'exec_b', outcome: 'OUTCOME_OK', output: '2\n' } }, { text: 'Done.' }], { finishReason: 'STOP' }),
      ),
    );
    const [first, second, firstResult, secondResult] = response.message.parts;
    expect(first).toMatchObject({ type: 'tool-call', id: 'exec_a', providerState: { google_gemini: { executableCode: true, thoughtSignature: 'sig-code' } } });
    expect(second).toMatchObject({ type: 'tool-call', id: 'exec_b' });
    expect(firstResult).toMatchObject({ type: 'tool-result', toolCallId: 'exec_a', output: { output: '1\n' } });
    expect(secondResult).toMatchObject({ type: 'tool-result', toolCallId: 'exec_b', output: { output: '2\n' } });
    expect(response.finishReason).toBe('stop');
  });
});
