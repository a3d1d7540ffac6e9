import { describe, expect, it } from 'vitest';
import { JSON_TEXTS } from '../../test/json-texts.ts';
import { ndjsonLine, type ResponseEncoderOptions } from '../shared/response-encoding.ts';
import { createOllamaResponseEncoder } from './encode-response.ts';

describe('the Ollama chat stream encoder', () => {
  it.each([
    ['defaults', {}],
    ['a route name and time', { model: 'llama "3"/é\u2028', created: 1_800_000_123 }],
  ] as [string, ResponseEncoderOptions][])('writes a text and a thinking delta byte for byte as the whole line stringified (%s)', (_name, options) => {
    const encoder = createOllamaResponseEncoder(options);
    const model = options.model ?? 'mock-model';
    const created_at = new Date((options.created ?? 1_700_000_000) * 1000).toISOString();
    for (const text of JSON_TEXTS) {
      const [line] = encoder.push({ type: 'text-delta', id: 't', delta: text });
      expect(line).toBe(ndjsonLine({ model, created_at, message: { role: 'assistant', content: text }, done: false }));
      expect(JSON.parse(line!).message.content).toBe(JSON.parse(JSON.stringify(text)));
      const [thinking] = encoder.push({ type: 'reasoning-delta', id: 'r', delta: text });
      expect(thinking).toBe(ndjsonLine({ model, created_at, message: { role: 'assistant', content: '', thinking: text }, done: false }));
      expect(JSON.parse(thinking!).message.thinking).toBe(JSON.parse(JSON.stringify(text)));
    }
  });
});
