import { describe, expect, it } from 'vitest';
import { hasBody } from './json-content-type.ts';

/** A request whose `body` must not be read (on Node, reading it builds a web stream the JSON edge never needs). */
function headersOnly(headers: Record<string, string>): Request {
  return {
    headers: new Headers(headers),
    get body(): never {
      throw new Error('body was read');
    },
  } as unknown as Request;
}

describe('hasBody', () => {
  it.each([
    [{ 'content-length': '12' }, true],
    [{ 'content-length': '0' }, false],
    [{ 'transfer-encoding': 'chunked' }, true],
  ])('reads %o from the headers alone: %s', (headers, expected) => {
    expect(hasBody(headersOnly(headers))).toBe(expected);
  });

  it('reads the body when no header declares one (a Request built in process)', () => {
    expect(hasBody(new Request('http://x/', { method: 'POST', body: '{}' }))).toBe(true);
    expect(hasBody(new Request('http://x/', { method: 'POST' }))).toBe(false);
    expect(hasBody(new Request('http://x/', { method: 'POST', body: '{}', headers: { 'content-length': '0' } }))).toBe(false);
  });
});
