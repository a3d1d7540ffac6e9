/**
 * HMAC-SHA-256 keys through Web Crypto (Workers, Deno, Bun, browsers and Node 20 all
 * have `crypto.subtle`). The first key signs; every key verifies, so a key can be
 * rotated without breaking the threads browsers still hold (see SECURITY.md).
 * A signature reads `p2.<key id>.<mac>` (base64url): the key id picks the key to check
 * it with, and is itself an HMAC of a constant, so it says nothing about the key. `p2`
 * texts name the principal they were issued to (thread-trust.ts); `p1` signatures (before
 * that) no longer verify.
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
/** The signature format: `p2` texts start with the principal's id (see thread-trust.ts). */
const VERSION = 'p2';

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
      return `${VERSION}.${first!.id}.${base64url(mac)}`;
    },
    async verify(text, signature) {
      const [version, id, mac, extra] = signature.split('.');
      if (version !== VERSION || !id || !mac || extra !== undefined) return false;
      const bytes = fromBase64url(mac);
      if (bytes?.length !== 32) return false;
      const data = encoder.encode(text);
      for (const key of await keys()) {
        // crypto.subtle.verify compares in constant time.
        if (key.id === id && (await crypto.subtle.verify('HMAC', key.key, bytes, data))) return true;
      }
      return false;
    },
  };
}
