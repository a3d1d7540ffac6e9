/**
 * Removes secrets (API keys) from text that may reach a user: error messages, events,
 * logs. Providers sometimes echo the key they rejected (as is, base64-encoded in an
 * echoed Basic header, or URL-encoded in an echoed URL), and a fetch error may quote a
 * header; none of these may leak it.
 *
 * @example
 * message.replaceAll(key, REDACTED);
 */
export const REDACTED = '[redacted]';

/** Very short values would redact ordinary words; no real key is this short. */
const MIN_SECRET_LENGTH = 6;

function base64(text: string): string | undefined {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Every form a secret may be echoed in: as is, URL-encoded, base64 and base64url (with and
 * without padding). Longest first, so a form that contains another is replaced whole.
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
    out.add(secret);
    out.add(encodeURIComponent(secret));
    const b64 = base64(secret)!;
    out.add(b64);
    out.add(b64.replace(/=+$/, ''));
    out.add(b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** `text` with every form of every secret (see `secretForms`) replaced by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const form of secretForms(secrets)) {
    if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return out;
}
