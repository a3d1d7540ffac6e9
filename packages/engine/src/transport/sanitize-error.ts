/**
 * An upstream error body is written for the provider's own developers, not for the
 * browser: proxies and gateways echo the request's headers, internal URLs and the
 * upstream's host and port. What reaches a user keeps the provider's words and loses
 * those: credential-looking headers become `[redacted]`, URLs and host:port pairs
 * `[upstream]`, and the text is cut to a readable length.
 */
const MAX_LENGTH = 300;

const CREDENTIAL_HEADER =
  /\b((?:proxy-)?authorization|cookie|set-cookie|x-api-key|api-key|x-goog-api-key|[\w-]*(?:token|secret|password|session|key)[\w-]*)("?\s*[:=]\s*)("[^"]*"|'[^']*'|(?:bearer|basic|token)\s+\S+|[^\s,;}\]]+)/gi;
const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]}]+/gi;
const HOST_PORT = /\b(?:(?:\d{1,3}\.){3}\d{1,3}|\[[0-9a-f:]+\]|localhost|(?:[a-z0-9-]+\.)+[a-z]{2,})(?::\d{2,5})\b/gi;
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;

/**
 * The provider's error message with echoed credentials, URLs and hosts removed.
 *
 * @example
 * ```ts
 * sanitizeErrorText('upstream 10.0.0.7:8443 said: bad header Authorization: Bearer sk-123');
 * // 'upstream [upstream] said: bad header Authorization: [redacted]'
 * ```
 */
export function sanitizeErrorText(text: string): string {
  let out = text
    .replace(CREDENTIAL_HEADER, (_m, name: string, sep: string) => `${name}${sep}[redacted]`)
    .replace(URL, '[upstream]')
    .replace(HOST_PORT, '[upstream]')
    .replace(IPV4, '[upstream]')
    .replace(/\s+/g, ' ')
    .trim();
  if (out.length > MAX_LENGTH) out = `${out.slice(0, MAX_LENGTH - 1)}…`;
  return out;
}
