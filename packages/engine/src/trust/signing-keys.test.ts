import { describe, expect, it } from 'vitest';
import { signingKeys } from './signing-keys.ts';

const A = 'a-signing-secret-that-is-long-enough-0123456789';
const B = 'another-signing-secret-long-enough-9876543210ab';
const encoder = new TextEncoder();
const base64url = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** A signature as the previous format wrote it: `p2.<key id>.<the whole MAC>`. */
async function p2(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const id = base64url(await crypto.subtle.sign('HMAC', key, encoder.encode('parlance key id'))).slice(0, 8);
  return `p2.${id}.${base64url(await crypto.subtle.sign('HMAC', key, encoder.encode(text)))}`;
}

describe('signing keys', () => {
  it('signs as p3.<128-bit MAC> (25 characters) and verifies it with any key of the list, not with another', async () => {
    const signature = await signingKeys(A).sign('text');
    expect(signature).toMatch(/^p3\.[A-Za-z0-9_-]{22}$/);
    expect(await signingKeys(A).verify('text', signature)).toBe(true);
    // Rotation: a new key first, the old one still verifies what it signed.
    expect(await signingKeys([B, A]).verify('text', signature)).toBe(true);
    expect(await signingKeys(B).verify('text', signature)).toBe(false);
  });

  it('still verifies a p2 signature (whole MAC, key id) by one of its keys', async () => {
    const old = await p2(A, 'text');
    expect(await signingKeys([B, A]).verify('text', old)).toBe(true);
    expect(await signingKeys(A).verify('other', old)).toBe(false);
    expect(await signingKeys(B).verify('text', old)).toBe(false);
  });

  it.each<[string, (s: string) => string]>([
    ['another text', (s) => s],
    ['one MAC character changed', (s) => `p3.${s[3] === 'A' ? 'B' : 'A'}${s.slice(4)}`],
    ['the same MAC spelled with unused bits set', (s) => s.slice(0, -1) + '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_'['0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_'.indexOf(s.at(-1)!) ^ 1]],
    ['the MAC cut short', (s) => s.slice(0, -2)],
    ['the MAC made longer', (s) => `${s}AA`],
    ['an empty MAC', () => 'p3.'],
    ['a key id added', (s) => s.replace('p3.', 'p3.abcdefgh.')],
    ['another version', (s) => s.replace('p3.', 'p1.')],
    ['a fourth part', (s) => `${s}.x`],
    ['not base64url', (s) => s.replace(/.$/, '+')],
  ])('refuses %s', async (what, edit) => {
    const keys = signingKeys(A);
    const signature = await keys.sign('text');
    expect(await keys.verify(what === 'another text' ? 'texT' : 'text', edit(signature))).toBe(false);
  });
});
