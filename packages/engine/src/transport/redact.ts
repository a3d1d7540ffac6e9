/**
 * Removes secrets (API keys) from text that may reach a user: error messages, events,
 * logs. Providers echo the key they rejected in many forms: as is, inside a header they
 * quote (`Bearer <key>`), base64-encoded inside an echoed `Authorization: Basic` or a
 * base64 dump of the request (where the key sits at any byte offset, so at any of the three
 * base64 alignments), URL-encoded in an echoed URL, JSON-escaped inside a JSON body, or as hex.
 * None of these may leak it.
 *
 * @example
 * message.replaceAll(key, REDACTED);
 */
export const REDACTED = '[redacted]';

/** Very short values would redact ordinary words; no real key is this short. */
const MIN_SECRET_LENGTH = 6;

const encoder = new TextEncoder();

function base64Bytes(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const toUrlAlphabet = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_');

/**
 * The base64 characters that encode only the secret's own bits when it starts `shift` bytes
 * (0, 1 or 2) after a 3-byte boundary: what every base64 text containing the secret at that
 * alignment holds (`base64("Bearer " + key)` has the key at shift 1, `base64("user:" + key)` at 2),
 * whatever comes before or after it. The one or two characters at each end that mix in the
 * neighbours' bits are left out (they carry under 6 bits of the key).
 */
function base64Core(bytes: Uint8Array, shift: number): string {
  const shifted = new Uint8Array(shift + bytes.length);
  shifted.set(bytes, shift);
  const b64 = base64Bytes(shifted);
  return b64.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/**
 * The forms of one secret, before escaping for JSON: as is, URL-encoded, hex (both cases),
 * base64 and base64url whole (with and without padding) and at every alignment, and the
 * base64 forms URL-encoded (`+`, `/`, `=` as `%2B`, `%2F`, `%3D` in an echoed query string).
 */
function formsOf(secret: string): string[] {
  const bytes = encoder.encode(secret);
  const whole = base64Bytes(bytes);
  const base64 = [whole, whole.replace(/=+$/, ''), base64Core(bytes, 0), base64Core(bytes, 1), base64Core(bytes, 2)];
  const out = [secret, encodeURIComponent(secret), hex(bytes), hex(bytes).toUpperCase()];
  for (const b of base64) out.push(b, toUrlAlphabet(b), encodeURIComponent(b));
  return out;
}

/**
 * Every form a secret may be echoed in: as is (also inside `Bearer <key>`), URL-encoded, hex,
 * base64 and base64url at every byte alignment (so `Basic base64(user:key)` and
 * `base64("Bearer <key>")` are caught), the base64 forms URL-encoded, and each of them
 * JSON-escaped (`\"`, `\\`, `\/`, control characters) as it appears inside JSON text.
 * Longest first, so a form that contains another is replaced whole.
 *
 * @example
 * ```ts
 * import { redact, secretForms } from '@parlance/engine';
 * const forms = secretForms([process.env.OPENAI_API_KEY]);
 * redact(upstreamMessage, forms);
 * ```
 */
export function secretForms(secrets: readonly (string | undefined)[]): string[] {
  const out = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of formsOf(secret)) {
      if (form.length < MIN_SECRET_LENGTH) continue;
      out.add(form);
      // As it reads inside JSON text: JSON.stringify's escapes, and `\/` (allowed by RFC 8259, written by PHP and others).
      const escaped = JSON.stringify(form).slice(1, -1);
      out.add(escaped);
      if (escaped.includes('/')) out.add(escaped.replace(/\//g, '\\/'));
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** `text` with every form of every secret (see `secretForms`) replaced by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return redactForms(text, secretForms(secrets));
}

/**
 * `text` with each of `forms` (from `secretForms`, longest first) replaced by `[redacted]`: for a
 * caller that computes the forms once and checks many texts.
 *
 * @example
 * ```ts
 * const forms = secretForms([process.env.OPENAI_API_KEY]);
 * redactForms(spanStatusMessage, forms);
 * ```
 */
export function redactForms(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) {
    if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return out;
}

/**
 * Values of secret-looking environment variables (named like KEY, TOKEN, SECRET, PASSWORD,
 * CREDENTIAL, AUTH; 8+ characters): where provider keys come from (`OPENAI_API_KEY`...), so what
 * the server's scrubber and the engine's span guard keep out of every output.
 *
 * @example
 * ```ts
 * const forms = secretForms(envSecrets(process.env));
 * ```
 */
export function envSecrets(env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH/i.test(name)) out.push(value);
  }
  return out;
}
