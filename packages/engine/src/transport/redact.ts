/**
 * Removes secrets (API keys) from text that may reach a user: error messages, events,
 * logs. Providers sometimes echo the key they rejected, and a fetch error may quote a
 * header; neither may leak it.
 */
export const REDACTED = '[redacted]';

export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would redact ordinary words; no real key is this short.
    if (!secret || secret.length < 6) continue;
    out = out.split(secret).join(REDACTED);
  }
  return out;
}
