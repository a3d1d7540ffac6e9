import { expect, it } from 'vitest';
import { ParlanceError, errorCodeForStatus } from './error.ts';

it('is recognised by a marker, not instanceof, so duplicated package copies agree', () => {
  const error = new ParlanceError('rate_limited', 'Slow down', { status: 429, retryAfterMs: 2000 });
  // A copy from another bundle: same marker, different class.
  const foreign = Object.assign(Object.create(Error.prototype), { [Symbol.for('parlance.error')]: true, code: 'timeout' });
  expect(ParlanceError.isInstance(error)).toBe(true);
  expect(ParlanceError.isInstance(foreign)).toBe(true);
  expect(ParlanceError.isInstance(new Error('x'))).toBe(false);
  expect(ParlanceError.isInstance(null)).toBe(false);
  expect(error.retryable).toBe(true);
  expect(error.toJSON()).toEqual({ code: 'rate_limited', message: 'Slow down', retryable: true, status: 429, retryAfterMs: 2000 });
  expect(JSON.stringify(error.toJSON())).not.toContain('stack');
});

it('wraps anything thrown, keeping aborts as aborted', () => {
  expect(ParlanceError.from(new DOMException('x', 'AbortError')).code).toBe('aborted');
  expect(ParlanceError.from('boom').message).toBe('boom');
  const original = new ParlanceError('network', 'reset');
  expect(ParlanceError.from(original)).toBe(original);
});

it('maps HTTP statuses to codes', () => {
  expect([400, 401, 403, 404, 408, 429, 500, 503, 529].map(errorCodeForStatus)).toEqual([
    'invalid_request',
    'authentication',
    'permission',
    'not_found',
    'timeout',
    'rate_limited',
    'server_error',
    'overloaded',
    'overloaded',
  ]);
});
