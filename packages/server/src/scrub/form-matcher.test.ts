import { REDACTED } from '@parlance/engine';
import { describe, expect, it } from 'vitest';
import { createFormMatcher } from './form-matcher.ts';

const KEY = 'sk-live/Abc+123def456GHI789jkl012MNO345';
const hex = (text: string) => [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, '0')).join('');

describe('createFormMatcher (phase one: the secret forms)', () => {
  const matcher = createFormMatcher([KEY])!;

  it.each<[string, string]>([
    ['raw', KEY],
    ['Bearer', `Authorization: Bearer ${KEY}`],
    ['base64 at shift 0', btoa(`abc${KEY}`)],
    ['base64 at shift 1 (Bearer)', btoa(`Bearer ${KEY}`)],
    ['base64 at shift 2 (Basic a:key)', btoa(`a:${KEY}`)],
    ['base64url at shift 1', btoa(`Bearer ${KEY}`).replace(/\+/g, '-').replace(/\//g, '_')],
    ['URL-encoded', encodeURIComponent(KEY)],
    ['URL-encoded base64', encodeURIComponent(btoa(`Bearer ${KEY}`))],
    ['JSON-escaped with \\/', KEY.replace(/\//g, '\\/')],
    ['hex', hex(KEY)],
    ['HEX', hex(KEY).toUpperCase()],
  ])('scrub replaces the %s form, leaving at most the neighbouring characters', (_name, text) => {
    const out = matcher.scrub(`<${text}>`);
    expect(out).toContain(REDACTED);
    // What is left besides the marker: the text around the key and the few characters that mix in the neighbours' bits.
    expect(out).not.toContain(text);
    expect(out).not.toContain(KEY);
    expect(out.replace(REDACTED, '').length).toBeLessThan(`<${text}>`.length - 20);
  });

  it('holdFrom finds the start of a tail that may begin any form, and nothing in plain text', () => {
    expect(matcher.holdFrom('the key is sk-li')).toBe('the key is '.length);
    expect(matcher.holdFrom(`hex ${hex(KEY).slice(0, 30)}`)).toBe(4);
    expect(matcher.holdFrom('plain words, nothing here.')).toBe('plain words, nothing here.'.length);
    expect(matcher.longest).toBe(hex(KEY).length);
  });

  it('ignores values under 8 characters and is built once per secret list', () => {
    expect(createFormMatcher(['short', undefined])).toBeUndefined();
    expect(createFormMatcher([KEY])).toBe(matcher);
  });
});
