/**
 * HMAC-SHA-256 keys through Web Crypto (Workers, Deno, Bun, browsers and Node 20 all
 * have `crypto.subtle`). The first key signs; every key verifies, so a key can be
 * rotated without breaking the threads browsers still hold (see SECURITY.md).
 * A signature reads `p3.<mac>`: the HMAC-SHA-256 truncated to its first 128 bits, base64url
 * (22 characters; truncation to at least half the output and 80 bits is what RFC 2104 §5 and
 * NIST SP 800-107 §5.3.3 allow, and 128 bits is what HMAC-SHA-256-128 in IPsec, RFC 4868, sends).
 * It names no key: a verifier tries each of its keys (there are a few while one is rotated).
 * `p2.<key id>.<mac>` (the whole MAC and a key id: signed before) still verifies; both name the
 * principal they were issued to (thread-trust.ts); `p1` signatures (before that) no longer verify.
 */
import { ParlanceError } from '@parlance/protocol';

/**
 * Keys shorter than this are refused: an HMAC key must not be guessable.
 *
 * @example
 * if (secret.length < MIN_SECRET_LENGTH) throw new Error('PARLANCE_SECRET is too short');
 */
export const MIN_SECRET_LENGTH = 32;

const encoder = new TextEncoder();
/** The signature format: `p3` (and `p2`, still read) texts start with the principal's id (see thread-trust.ts). */
const VERSION = 'p3';
/** The bytes of the MAC a `p3` signature keeps (128 bits). */
const MAC_BYTES = 16;

export interface SigningKey {
  id: string;
  key: CryptoKey;
}

export interface SigningKeys {
  /** Signs `text` with the first key. */
  sign(text: string): Promise<string>;
  /** Whether `signature` is a valid signature of `text` by any of the keys. */
  verify(text: string, signature: string): Promise<boolean>;
}

function base64url(bytes: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

async function importKey(secret: string): Promise<SigningKey> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const id = base64url(await crypto.subtle.sign('HMAC', key, encoder.encode('parlance key id'))).slice(0, 8);
  return { id, key };
}

/** The secrets as a list: one string, or several (the first signs). */
export function secretList(secret: string | readonly string[]): string[] {
  const list = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => s !== '');
  if (list.length === 0) throw new ParlanceError('invalid_request', 'A signing secret is required');
  for (const s of list) {
    if (s.length < MIN_SECRET_LENGTH) {
      throw new ParlanceError('invalid_request', `A signing secret must be at least ${MIN_SECRET_LENGTH} characters long`);
    }
  }
  return list;
}

export function signingKeys(secret: string | readonly string[]): SigningKeys {
  const list = secretList(secret);
  // Imported once, on first use (nothing runs at construction: no work at import or build time).
  let imported: Promise<SigningKey[]> | undefined;
  const keys = () => (imported ??= Promise.all(list.map(importKey)));
  return {
    async sign(text) {
      const [first] = await keys();
      const mac = await crypto.subtle.sign('HMAC', first!.key, encoder.encode(text));
      return `${VERSION}.${base64url(mac.slice(0, MAC_BYTES))}`;
    },
    async verify(text, signature) {
      const [version, a, b, extra] = signature.split('.');
      if (extra !== undefined) return false;
      const data = encoder.encode(text);
      if (version === VERSION && a && b === undefined) {
        const bytes = fromBase64url(a);
        // One spelling per MAC: the last character's unused low bits must be zero (no second valid text).
        if (bytes?.length !== MAC_BYTES || base64url(bytes.buffer) !== a) return false;
        for (const key of await keys()) if (sameBytes(new Uint8Array(await crypto.subtle.sign('HMAC', key.key, data)), bytes)) return true;
        return false;
      }
      // p2: the whole MAC, and the id of the key that made it.
      if (version !== 'p2' || !a || !b) return false;
      const bytes = fromBase64url(b);
      if (bytes?.length !== 32) return false;
      for (const key of await keys()) {
        // crypto.subtle.verify compares in constant time.
        if (key.id === a && (await crypto.subtle.verify('HMAC', key.key, bytes, data))) return true;
      }
      return false;
    },
  };
}

/** Whether `expected` starts with `mac`, in time that does not depend on where they differ (Web Crypto's verify takes the whole MAC only). */
function sameBytes(expected: Uint8Array, mac: Uint8Array): boolean {
  let diff = 0;
  for (let i = 0; i < mac.length; i++) diff |= expected[i]! ^ mac[i]!;
  return diff === 0;
}
