import { describe, expect, it } from 'vitest';
import { type ResponseEncoderOptions, sseFrame } from '../shared/response-encoding.ts';
import { JSON_TEXTS as TEXTS } from '../../test/json-texts.ts';
import { createCompletionsResponseEncoder } from './encode-response.ts';

describe('the Chat Completions stream encoder', () => {
  it.each([
    ['defaults', {}],
    ['a route name, response id and time', { model: 'gpt "mini"/é', responseId: 'chatcmpl-abc\u2028', created: 1_800_000_123 }],
  ] as [string, ResponseEncoderOptions][])('writes a text delta byte for byte as the whole chunk stringified (%s)', (_name, options) => {
    const encoder = createCompletionsResponseEncoder(options);
    const base = {
      id: options.responseId ?? 'chatcmpl-parlance0001',
      object: 'chat.completion.chunk',
      created: options.created ?? 1_700_000_000,
      model: options.model ?? 'mock-model',
    };
    for (const text of TEXTS) {
      const [frame] = encoder.push({ type: 'text-delta', id: 't', delta: text });
      expect(frame).toBe(sseFrame({ ...base, choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] }));
      // A client reads the text back (a lone surrogate as JSON.stringify writes it, escaped).
      expect(JSON.parse(frame!.slice('data: '.length)).choices[0].delta.content).toBe(JSON.parse(JSON.stringify(text)));
    }
  });
});
