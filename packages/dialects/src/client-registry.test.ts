import { ParlanceError, type ModelRequest } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { getClientDialect, isDialectId } from './client-registry.ts';
import { decodeText, getDialect } from './registry.ts';
import { DIALECT_IDS } from './types.ts';

const request: ModelRequest = {
  model: 'm',
  messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
};

describe('getClientDialect', () => {
  it.each(DIALECT_IDS.map((id) => [id]))('%s: the client side is the full dialect\'s', (id) => {
    const client = getClientDialect(id);
    const full = getDialect(id);
    expect(client.id).toBe(id);
    expect(client.framing).toBe(full.framing);
    expect(client.path('gemini-2.5-flash', { stream: true })).toBe(full.path('gemini-2.5-flash', { stream: true }));
    const body = client.encodeRequest(request);
    expect(body).toEqual(full.encodeRequest(request));
    expect(client.requestHeaders?.(body)).toEqual(full.requestHeaders?.(body));
    // The server side stays on the full dialect only.
    expect('decodeRequest' in client).toBe(false);
    expect('encodeResponse' in client).toBe(false);
  });

  it('decodes a stream by id the same way the full dialect does', () => {
    const text = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n';
    expect(decodeText('openai_completions', text)).toEqual(decodeText(getDialect('openai_completions'), text));
    expect(decodeText('openai_completions', text).some((e) => e.type === 'text-delta')).toBe(true);
  });

  it('throws invalid_request for an unknown id, naming the known ones', () => {
    expect(isDialectId('bedrock')).toBe(false);
    const error = (() => {
      try {
        getClientDialect('bedrock');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ParlanceError);
    expect((error as ParlanceError).code).toBe('invalid_request');
    expect((error as ParlanceError).message).toContain('anthropic_messages');
  });
});
