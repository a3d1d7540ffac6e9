import { describe, expect, it } from 'vitest';
import { sanitizeErrorText } from './sanitize-error.ts';

describe('sanitizeErrorText', () => {
  it('drops echoed credentials, URLs, hosts and ports; keeps the provider\'s words', () => {
    const body =
      'Bad gateway from http://10.0.3.7:8443/v1/chat (upstream api.internal.corp:9000). Request headers: Authorization: Bearer sk-live-123456, "x-proxy-token": "pt-abcdef", cookie=session=xyz';
    const out = sanitizeErrorText(body);
    expect(out).toContain('Bad gateway from');
    for (const leaked of ['10.0.3.7', '8443', 'api.internal.corp', '9000', 'sk-live-123456', 'pt-abcdef', 'session=xyz']) expect(out).not.toContain(leaked);
    expect(out).toContain('Authorization: [redacted]');
  });

  it('leaves an ordinary message alone and cuts a long one', () => {
    expect(sanitizeErrorText('Overloaded, try again in 3.5 seconds')).toBe('Overloaded, try again in 3.5 seconds');
    expect(sanitizeErrorText('x'.repeat(1000)).length).toBe(300);
  });
});
