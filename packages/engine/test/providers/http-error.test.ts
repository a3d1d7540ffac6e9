import { describe, expect, it } from 'vitest';
import { httpError, parseRetryAfter, readErrorBody } from '../../src/transport/index.ts';

const base = { providerName: 'P', retryableStatus: false };

describe('provider error bodies', () => {
  it('reads the message from every provider shape', () => {
    expect(readErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toEqual({ message: 'Overloaded', type: 'overloaded_error' });
    expect(readErrorBody('[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}]')).toEqual({ message: 'API key not valid.', type: 'API_KEY_INVALID' });
    expect(readErrorBody('{"error":"model \\"x\\" not found"}').message).toBe('model "x" not found');
    expect(readErrorBody('{"detail":[{"msg":"field required"}]}').message).toBe('field required');
    expect(readErrorBody('<html><body>502 Bad Gateway</body></html>').message).toBe('502 Bad Gateway');
  });

  it('refines the status code with what the body says', () => {
    expect(httpError({ ...base, status: 529, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' }).code).toBe('overloaded');
    expect(httpError({ ...base, status: 400, body: '{"error":{"message":"API key not valid.","details":[{"reason":"API_KEY_INVALID"}]}}' }).code).toBe('authentication');
    expect(httpError({ ...base, status: 400, body: '{"error":{"message":"This model\'s maximum context length is 128000 tokens"}}' }).code).toBe('context_length_exceeded');
    const quota = httpError({ ...base, status: 429, body: '{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}', retryableStatus: true });
    expect([quota.code, quota.retryable]).toEqual(['rate_limited', false]);
  });
});

describe('Retry-After', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500);
    expect(parseRetryAfter(new Headers({ 'retry-after': '2.5' }))).toBe(2500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });
});
